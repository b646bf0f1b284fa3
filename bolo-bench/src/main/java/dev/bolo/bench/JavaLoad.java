package dev.bolo.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The load generator for large notes, in the harness's own process (never the gateway's): what wrk
 * does, without building each request anew. wrk's script makes every note unique by copying the
 * whole body twice per request; at 25 MB that costs the load generator more CPU than the gateway
 * spends (measured: wrk at 180 % CPU, nearly all system time, the gateway at 6 %). Here each
 * request's body is three read-only views of one shared array (before the placeholder, the
 * request's own 24-character id, after it), so no byte is copied before the socket.
 *
 * <p>Counts as wrk does: requests answered within the round, their latency, non-2xx answers,
 * timeouts and socket errors; requests still in flight when the round ends are not counted.
 */
final class JavaLoad {

  private static final int SLICE = 64 * 1024;

  private JavaLoad() {}

  /**
   * Runs {@code connections} senders against {@code url} for {@code seconds}.
   *
   * @param body one multipart upload holding the 24-character placeholder
   * @param nonce 8 characters that keep this run's notes apart from every other run's
   * @param tokens the device tokens: connection {@code i} sends with {@code tokens[i % size]}; none
   *     when empty
   */
  static LoadResult run(
      byte[] body,
      String contentType,
      String url,
      List<String> tokens,
      int connections,
      int seconds,
      int timeoutSeconds,
      String nonce)
      throws InterruptedException {
    int at = UploadTemplate.placeholderAt(body);
    List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
    AtomicLong statusErrors = new AtomicLong();
    AtomicLong timeouts = new AtomicLong();
    AtomicLong socketErrors = new AtomicLong();
    AtomicLong counter = new AtomicLong();
    long started = System.nanoTime();
    long deadline = started + TimeUnit.SECONDS.toNanos(seconds);
    try (ExecutorService senders = Executors.newVirtualThreadPerTaskExecutor();
        HttpClient client =
            HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(timeoutSeconds))
                .executor(senders)
                .build()) {
      List<CompletableFuture<Void>> all = new ArrayList<>();
      for (int c = 0; c < connections; c++) {
        int sender = c;
        all.add(
            CompletableFuture.runAsync(
                () -> {
                  while (System.nanoTime() - deadline < 0) {
                    String id =
                        String.format("%s%04d%012d", nonce, sender, counter.incrementAndGet());
                    HttpRequest.Builder request =
                        HttpRequest.newBuilder(URI.create(url))
                            .timeout(Duration.ofSeconds(timeoutSeconds))
                            .header("Content-Type", contentType)
                            .POST(
                                HttpRequest.BodyPublishers.fromPublisher(
                                    new Slices(body, at, id.getBytes(StandardCharsets.US_ASCII)),
                                    body.length));
                    if (!tokens.isEmpty()) {
                      request.header(
                          "Authorization", "Bearer " + tokens.get(sender % tokens.size()));
                    }
                    long sent = System.nanoTime();
                    CompletableFuture<HttpResponse<Void>> answer =
                        client.sendAsync(request.build(), HttpResponse.BodyHandlers.discarding());
                    try {
                      HttpResponse<Void> response =
                          answer.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                      latencies.add(System.nanoTime() - sent);
                      if (response.statusCode() >= 400) {
                        statusErrors.incrementAndGet();
                      }
                    } catch (TimeoutException | InterruptedException roundOver) {
                      answer.cancel(true);
                      return;
                    } catch (ExecutionException e) {
                      if (System.nanoTime() - deadline >= 0) {
                        return;
                      }
                      if (e.getCause() instanceof HttpTimeoutException) {
                        timeouts.incrementAndGet();
                      } else if (e.getCause() instanceof IOException) {
                        socketErrors.incrementAndGet();
                      } else {
                        throw new IllegalStateException(e.getCause());
                      }
                    } catch (CancellationException e) {
                      return;
                    }
                  }
                },
                senders));
      }
      for (CompletableFuture<Void> one : all) {
        try {
          one.get();
        } catch (ExecutionException e) {
          throw new IllegalStateException("a sender failed", e.getCause());
        }
      }
      client.shutdownNow();
    }
    long duration = System.nanoTime() - started;
    List<Long> sorted;
    synchronized (latencies) {
      sorted = latencies.stream().sorted().toList();
    }
    return new LoadResult(
        sorted.size(),
        TimeUnit.NANOSECONDS.toMicros(duration),
        percentileMicros(sorted, 50),
        percentileMicros(sorted, 99),
        statusErrors.get(),
        timeouts.get(),
        socketErrors.get(),
        Map.of());
  }

  private static long percentileMicros(List<Long> sorted, int percentile) {
    if (sorted.isEmpty()) {
      return 0;
    }
    int index = (int) Math.ceil(percentile / 100.0 * sorted.size()) - 1;
    return TimeUnit.NANOSECONDS.toMicros(sorted.get(Math.max(0, index)));
  }

  /** One request's body: read-only slices of the shared array, the request's id in its place. */
  private static final class Slices implements Flow.Publisher<ByteBuffer> {
    private final byte[] body;
    private final int at;
    private final byte[] id;

    Slices(byte[] body, int at, byte[] id) {
      this.body = body;
      this.at = at;
      this.id = id;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
      subscriber.onSubscribe(
          new Flow.Subscription() {
            private long demand;
            private boolean emitting;
            private boolean done;
            private int position;
            private boolean idSent;

            @Override
            public void request(long n) {
              synchronized (this) {
                demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
                if (emitting) {
                  return;
                }
                emitting = true;
              }
              while (true) {
                ByteBuffer next;
                synchronized (this) {
                  if (done || demand == 0) {
                    emitting = false;
                    return;
                  }
                  demand--;
                  next = nextSlice();
                  if (next == null) {
                    done = true;
                    emitting = false;
                  }
                }
                if (next == null) {
                  subscriber.onComplete();
                  return;
                }
                subscriber.onNext(next);
              }
            }

            private @Nullable ByteBuffer nextSlice() {
              if (position < at) {
                int n = Math.min(SLICE, at - position);
                ByteBuffer slice = ByteBuffer.wrap(body, position, n).asReadOnlyBuffer();
                position += n;
                return slice;
              }
              if (!idSent) {
                idSent = true;
                position = at + id.length;
                return ByteBuffer.wrap(id).asReadOnlyBuffer();
              }
              if (position < body.length) {
                int n = Math.min(SLICE, body.length - position);
                ByteBuffer slice = ByteBuffer.wrap(body, position, n).asReadOnlyBuffer();
                position += n;
                return slice;
              }
              return null;
            }

            @Override
            public void cancel() {
              synchronized (this) {
                done = true;
              }
            }
          });
    }
  }
}
