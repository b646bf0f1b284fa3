package dev.bolo.bench;

import dev.bolo.server.App;
import dev.bolo.server.config.ServerConfig;
import dev.bolo.testkit.Directories;
import io.javalin.Javalin;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.ConnectionPool;
import okhttp3.Dispatcher;
import okhttp3.MediaType;
import okhttp3.MultipartBody;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;

/**
 * Drives uploads through the gateway and, in the same run, straight at the same local fake
 * provider, and prints throughput, p50/p99 latency and the gateway/direct ratio; then a duplicate
 * storm (every note sent several times at once) counting provider calls per distinct note.
 *
 * <p>Everything runs on loopback in this JVM: the fake provider (Javalin), the gateway ({@link App}
 * with the OpenAI-compatible engine) and the clients (OkHttp on virtual threads). Each phase is
 * bounded in requests and in time.
 *
 * <p>Usage: {@code bolo-bench/run LoadHarness [--connections 50] [--note-kb 200] [--seconds 15]
 * [--copies 4] [--rounds 3]}
 */
public final class LoadHarness {

  private static final MediaType WAV = MediaType.get("audio/wav");

  private LoadHarness() {}

  public static void main(String[] args) throws Exception {
    Options options = Options.parse(args);
    AtomicLong providerCalls = new AtomicLong();
    Javalin provider = StandInProvider.create(providerCalls, 0, 0).start();
    String providerUrl = "http://127.0.0.1:" + provider.port() + "/v1";
    String token = LoadTargets.TOKEN;
    var dataDir = Files.createTempDirectory("bolo-bench");
    // Any BOLO_* variable of the harness's environment applies too (e.g. BOLO_DATABASE_URL).
    Map<String, String> env = BenchNotes.boloEnvironment();
    env.put("BOLO_PORT", "0");
    env.put("BOLO_ENGINE", "openai");
    env.put("BOLO_OPENAI_BASE_URL", providerUrl);
    env.put("BOLO_OPENAI_API_KEY", "sk-bench");
    env.put("BOLO_DATA_DIR", dataDir.toString());
    env.put("BOLO_DEVICE_TOKENS", "bench=" + token);
    App gateway = App.create(ServerConfig.fromMap(env)).start();
    OkHttpClient client = client(options.connections());
    byte[] template = BenchNotes.wav(options.noteKb() * 1024);
    AtomicLong seed = new AtomicLong();
    try {
      System.out.printf(
          "Load harness: %d connections, %d KB notes, %d s per phase, %d rounds, %d cores%n",
          options.connections(),
          options.noteKb(),
          options.seconds(),
          options.rounds(),
          Runtime.getRuntime().availableProcessors());
      String direct = providerUrl + "/audio/transcriptions";
      String viaGateway = "http://127.0.0.1:" + gateway.port() + "/v1/audio/transcriptions";
      // Warm both paths (JIT, connection pools) before measuring.
      run("warm-up", client, direct, null, template, seed, options.connections(), 5);
      run("warm-up", client, viaGateway, token, template, seed, options.connections(), 5);
      List<Double> ratios = new ArrayList<>();
      for (int round = 1; round <= options.rounds(); round++) {
        Result d =
            run(
                "direct",
                client,
                direct,
                null,
                template,
                seed,
                options.connections(),
                options.seconds());
        Result g =
            run(
                "gateway",
                client,
                viaGateway,
                token,
                template,
                seed,
                options.connections(),
                options.seconds());
        System.out.println("round " + round + ": " + d);
        System.out.println("round " + round + ": " + g);
        ratios.add(g.throughput() / d.throughput());
      }
      ratios.sort(Double::compare);
      System.out.printf(
          "gateway/direct throughput ratio: median %.2f (rounds: %s)%n",
          ratios.get(ratios.size() / 2), ratios);

      int distinct = 100;
      long before = providerCalls.get();
      Result storm =
          storm(
              client,
              viaGateway,
              token,
              template,
              seed,
              distinct,
              options.copies(),
              options.connections());
      long calls = providerCalls.get() - before;
      System.out.println("duplicate storm: " + storm);
      System.out.printf(
          "duplicate storm: %d distinct notes x %d copies -> %d provider calls (%.2f per note), %d replayed answers%n",
          distinct, options.copies(), calls, calls / (double) distinct, storm.replayed());
    } finally {
      gateway.close();
      provider.stop();
      client.dispatcher().executorService().shutdown();
      client.connectionPool().evictAll();
      Directories.deleteTree(dataDir);
    }
  }

  private static OkHttpClient client(int connections) {
    Dispatcher dispatcher = new Dispatcher();
    dispatcher.setMaxRequests(connections * 2);
    dispatcher.setMaxRequestsPerHost(connections * 2);
    return new OkHttpClient.Builder()
        .dispatcher(dispatcher)
        .connectionPool(new ConnectionPool(connections * 2, 1, TimeUnit.MINUTES))
        .readTimeout(Duration.ofSeconds(60))
        .retryOnConnectionFailure(false)
        .build();
  }

  /** What one phase measured. */
  record Result(
      String name, int requests, int errors, int replayed, double seconds, long[] latenciesNanos) {
    double throughput() {
      return requests / seconds;
    }

    double percentileMs(double p) {
      if (latenciesNanos.length == 0) {
        return Double.NaN;
      }
      int index =
          (int) Math.min(latenciesNanos.length - 1, Math.ceil(p * latenciesNanos.length) - 1);
      return latenciesNanos[Math.max(0, index)] / 1e6;
    }

    @Override
    public String toString() {
      return String.format(
          "%-8s %6d requests in %5.1f s = %7.1f req/s, p50 %6.1f ms, p99 %6.1f ms, errors %d",
          name, requests, seconds, throughput(), percentileMs(0.50), percentileMs(0.99), errors);
    }
  }

  /** Unique notes from {@code connections} loops for {@code seconds}. */
  private static Result run(
      String name,
      OkHttpClient client,
      String url,
      @Nullable String token,
      byte[] template,
      AtomicLong seed,
      int connections,
      int seconds)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
    AtomicInteger errors = new AtomicInteger();
    AtomicInteger replayed = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(connections);
    long started = System.nanoTime();
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int c = 0; c < connections; c++) {
        threads.execute(
            () -> {
              try {
                while (System.nanoTime() < deadline) {
                  send(
                      client,
                      url,
                      token,
                      unique(template, seed.incrementAndGet()),
                      latencies,
                      errors,
                      replayed);
                }
              } finally {
                done.countDown();
              }
            });
      }
      done.await();
    }
    double elapsed = (System.nanoTime() - started) / 1e9;
    return result(name, latencies, errors, replayed, elapsed);
  }

  /**
   * {@code distinct} notes, each sent {@code copies} times at once, {@code connections} at a time.
   */
  private static Result storm(
      OkHttpClient client,
      String url,
      @Nullable String token,
      byte[] template,
      AtomicLong seed,
      int distinct,
      int copies,
      int connections)
      throws InterruptedException {
    ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
    AtomicInteger errors = new AtomicInteger();
    AtomicInteger replayed = new AtomicInteger();
    long started = System.nanoTime();
    java.util.concurrent.Semaphore permits = new java.util.concurrent.Semaphore(connections);
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int n = 0; n < distinct; n++) {
        byte[] note = unique(template, seed.incrementAndGet());
        for (int c = 0; c < copies; c++) {
          permits.acquire();
          threads.execute(
              () -> {
                try {
                  send(client, url, token, note, latencies, errors, replayed);
                } finally {
                  permits.release();
                }
              });
        }
      }
    }
    double elapsed = (System.nanoTime() - started) / 1e9;
    return result("storm", latencies, errors, replayed, elapsed);
  }

  private static Result result(
      String name,
      ConcurrentLinkedQueue<Long> latencies,
      AtomicInteger errors,
      AtomicInteger replayed,
      double elapsed) {
    long[] sorted = latencies.stream().mapToLong(Long::longValue).toArray();
    Arrays.sort(sorted);
    return new Result(name, sorted.length, errors.get(), replayed.get(), elapsed, sorted);
  }

  private static void send(
      OkHttpClient client,
      String url,
      @Nullable String token,
      byte[] note,
      ConcurrentLinkedQueue<Long> latencies,
      AtomicInteger errors,
      AtomicInteger replayed) {
    MultipartBody form =
        new MultipartBody.Builder()
            .setType(MultipartBody.FORM)
            .addFormDataPart("model", "whisper-1")
            .addFormDataPart("file", "note.wav", RequestBody.create(note, WAV))
            .build();
    Request.Builder request = new Request.Builder().url(url).post(form);
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    long start = System.nanoTime();
    try (Response response = client.newCall(request.build()).execute()) {
      response.body().bytes();
      if (response.code() != 200) {
        errors.incrementAndGet();
        return;
      }
      if ("true".equals(response.header("Idempotent-Replayed"))) {
        replayed.incrementAndGet();
      }
      latencies.add(System.nanoTime() - start);
    } catch (IOException e) {
      errors.incrementAndGet();
    }
  }

  /** A copy of the template whose first samples encode {@code seed}: same size, new hash. */
  private static byte[] unique(byte[] template, long seed) {
    byte[] note = template.clone();
    ByteBuffer.wrap(note, 44, 8).order(ByteOrder.LITTLE_ENDIAN).putLong(seed);
    return note;
  }

  /** Command-line options. */
  record Options(int connections, int noteKb, int seconds, int copies, int rounds) {
    static Options parse(String[] args) {
      int connections = 50;
      int noteKb = 200;
      int seconds = 15;
      int copies = 4;
      int rounds = 3;
      for (int i = 0; i + 1 < args.length; i += 2) {
        int value = Integer.parseInt(args[i + 1]);
        switch (args[i]) {
          case "--connections" -> connections = value;
          case "--note-kb" -> noteKb = value;
          case "--seconds" -> seconds = value;
          case "--copies" -> copies = value;
          case "--rounds" -> rounds = value;
          default -> throw new IllegalArgumentException("unknown option: " + args[i]);
        }
      }
      return new Options(connections, noteKb, seconds, copies, rounds);
    }
  }
}
