package dev.bolo.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Samples a gateway's used heap from its own {@code /metrics} ({@code
 * jvm_memory_used_bytes{area="heap"}}) every second while a phase runs: one small HTTP request,
 * where a {@code jstat} per sample started a JVM each second beside the gateway measured (and took
 * its CPU from that gateway's rounds alone).
 *
 * <p>Started and stopped by one thread; the peak may be read from any.
 */
final class HeapSampler {
  private final HttpClient http = HttpClient.newHttpClient();
  private final HttpRequest metrics;
  private final AtomicLong peakBytes = new AtomicLong();
  private final AtomicBoolean running = new AtomicBoolean();
  private @Nullable Thread thread;

  HeapSampler(String targetUrl) {
    URI target = URI.create(targetUrl);
    // A gateway deep in garbage collection may answer late: that sample is skipped, not the rest.
    this.metrics =
        HttpRequest.newBuilder(target.resolve("/metrics")).timeout(Duration.ofSeconds(5)).build();
  }

  void start() {
    running.set(true);
    thread = Thread.ofPlatform().daemon().start(this::sample);
  }

  void stop() throws InterruptedException {
    running.set(false);
    if (thread != null) {
      thread.join();
    }
  }

  long peakUsedMb() {
    return peakBytes.get() / (1024 * 1024);
  }

  private void sample() {
    while (running.get()) {
      try {
        double used = 0;
        for (String line :
            http.send(metrics, HttpResponse.BodyHandlers.ofString()).body().lines().toList()) {
          if (line.startsWith("jvm_memory_used_bytes{") && line.contains("area=\"heap\"")) {
            used += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
          }
        }
        peakBytes.accumulateAndGet((long) used, Math::max);
        Thread.sleep(1_000);
      } catch (HttpTimeoutException e) {
        // Skipped; the next sample follows at once.
      } catch (IOException | RuntimeException e) {
        return;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
