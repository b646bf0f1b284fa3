package dev.bolo.cli;

import com.sun.net.httpserver.HttpServer;
import dev.bolo.client.BoloClient;
import dev.bolo.client.Outcome;
import dev.bolo.client.TranscriptionOptions;
import dev.bolo.client.VoiceNote;
import dev.bolo.server.App;
import dev.bolo.server.config.ServerConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * The training run the AOT cache is made from ({@code -XX:AOTCacheOutput}, JEP 483/514/515): the
 * gateway as {@code ./bolo serve} runs it, with the OpenAI-compatible engine on a stand-in that
 * answers at once, taking notes through the routes phones and SDKs use (the OpenAI-compatible
 * multipart upload, the native upload of the client SDK, resends that replay), so the classes of
 * the request path are loaded and linked and its methods profiled before the first real request
 * arrives. Everything it makes lives in a temporary directory, removed at the end.
 *
 * <p>Run by {@code ./bolo}'s build; exits 0 when every request was answered 200, else 1 (a cache
 * trained on error paths would prepare the wrong code).
 */
public final class AotTraining {

  private static final String TOKEN = "aot-training-token-0123456789abcdef";
  private static final int NOTE_BYTES = 200 * 1024;
  private static final int THREADS = 8;

  private AotTraining() {}

  public static void main(String[] args) throws Exception {
    int requests = args.length > 0 ? Integer.parseInt(args[0]) : 1500;
    DemoCommand.quietLogs();
    int failed = run(requests);
    System.out.printf("bolo: AOT training sent %d notes, %d not answered 200%n", requests, failed);
    System.exit(failed == 0 ? 0 : 1);
  }

  /**
   * Starts a stand-in and a gateway on it, sends {@code requests} notes and stops both; returns how
   * many notes were not answered 200.
   */
  static int run(int requests) throws Exception {
    return run(requests, Long.MAX_VALUE);
  }

  /**
   * Warms this JVM's request path up before the real gateway starts ({@code BOLO_WARMUP}): the same
   * run, for {@code duration}; the code the JIT compiled meanwhile serves the real gateway. Nothing
   * reaches the real engine, store or ledger. Returns how many notes were sent.
   */
  static int warmUp(java.time.Duration duration) throws Exception {
    long deadline = System.nanoTime() + duration.toNanos();
    ch.qos.logback.classic.Level level = DemoCommand.quietServerLogs();
    try {
      sentInWarmUp.set(0);
      run(Integer.MAX_VALUE, deadline);
      return sentInWarmUp.get();
    } finally {
      DemoCommand.restoreServerLogs(level);
    }
  }

  private static final AtomicInteger sentInWarmUp = new AtomicInteger();

  private static int run(int requests, long deadline) throws Exception {
    Path dir = Files.createTempDirectory("bolo-aot-training-");
    HttpServer provider = standIn();
    try {
      Map<String, String> env =
          Map.of(
              "BOLO_ENGINE", "openai",
              "BOLO_OPENAI_BASE_URL", "http://127.0.0.1:" + provider.getAddress().getPort() + "/v1",
              "BOLO_OPENAI_API_KEY", "aot-training",
              "BOLO_DATA_DIR", dir.toString(),
              "BOLO_HOST", "127.0.0.1",
              "BOLO_PORT", "0",
              "BOLO_DEVICE_TOKENS", "training=" + TOKEN);
      try (App app = App.create(ServerConfig.fromMap(env)).start()) {
        return train("http://127.0.0.1:" + app.port(), requests, deadline);
      }
    } finally {
      provider.stop(0);
      deleteTree(dir);
    }
  }

  /** Sends the notes from {@value #THREADS} threads; returns how many were not answered 200. */
  private static int train(String base, int requests, long deadline) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    BoloClient sdk = BoloClient.builder().baseUrl(base).token(TOKEN).build();
    AtomicInteger failed = new AtomicInteger();
    try (ExecutorService threads = Executors.newFixedThreadPool(THREADS)) {
      List<Future<?>> sent = new ArrayList<>();
      java.util.concurrent.Semaphore inFlight = new java.util.concurrent.Semaphore(THREADS * 2);
      for (int i = 0; i < requests && System.nanoTime() - deadline < 0; i++) {
        inFlight.acquire();
        // Every tenth note is a resend of the one before it: the replay path.
        int note = i % 10 == 9 ? i - 1 : i;
        boolean native_ = i % 4 == 3;
        sent.add(
            threads.submit(
                () -> {
                  try {
                    boolean ok =
                        native_ ? viaSdk(sdk, wav(note)) : viaOpenAiRoute(http, base, wav(note));
                    if (!ok) {
                      failed.incrementAndGet();
                    }
                    sentInWarmUp.incrementAndGet();
                    return null;
                  } finally {
                    inFlight.release();
                  }
                }));
      }
      for (Future<?> one : sent) {
        one.get();
      }
    }
    return failed.get();
  }

  private static boolean viaSdk(BoloClient sdk, byte[] wav) {
    Outcome outcome =
        sdk.transcribe(VoiceNote.ofBytes(wav, "note.wav"), TranscriptionOptions.defaults());
    return outcome instanceof Outcome.Transcribed;
  }

  private static boolean viaOpenAiRoute(HttpClient http, String base, byte[] wav)
      throws IOException, InterruptedException {
    String boundary = "bolo-aot-training-boundary";
    byte[] head =
        ("--"
                + boundary
                + "\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n--"
                + boundary
                + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"note.wav\"\r\n"
                + "Content-Type: audio/wav\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.US_ASCII);
    byte[] body =
        ByteBuffer.allocate(head.length + wav.length + tail.length)
            .put(head)
            .put(wav)
            .put(tail)
            .array();
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(base + "/v1/audio/transcriptions"))
            .header("Authorization", "Bearer " + TOKEN)
            .header("Content-Type", "multipart/form-data; boundary=" + boundary)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build();
    return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
  }

  /** A 16 kHz mono WAV of {@value #NOTE_BYTES} bytes whose samples differ per {@code note}. */
  static byte[] wav(int note) {
    int dataBytes = NOTE_BYTES - 44;
    ByteBuffer wav = ByteBuffer.allocate(NOTE_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    wav.put("RIFF".getBytes(StandardCharsets.US_ASCII)).putInt(36 + dataBytes);
    wav.put("WAVEfmt ".getBytes(StandardCharsets.US_ASCII)).putInt(16).putShort((short) 1);
    wav.putShort((short) 1).putInt(16_000).putInt(32_000).putShort((short) 2).putShort((short) 16);
    wav.put("data".getBytes(StandardCharsets.US_ASCII)).putInt(dataBytes);
    double hertz = 200 + note % 600;
    for (int i = 0; i < dataBytes / 2; i++) {
      wav.putShort((short) (Math.sin(2 * Math.PI * hertz * i / 16_000) * 8_000 + note % 7));
    }
    return wav.array();
  }

  /** An OpenAI-compatible transcription service that reads the note and answers at once. */
  private static HttpServer standIn() throws IOException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    server.createContext(
        "/v1/audio/transcriptions",
        exchange -> {
          try (InputStream body = exchange.getRequestBody()) {
            body.transferTo(java.io.OutputStream.nullOutputStream());
          }
          byte[] answer = "{\"text\":\"a note for training\"}".getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, answer.length);
          exchange.getResponseBody().write(answer);
          exchange.close();
        });
    server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    server.start();
    return server;
  }

  /** Deletes {@code dir} and everything in it. */
  static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(file);
      }
    }
  }
}
