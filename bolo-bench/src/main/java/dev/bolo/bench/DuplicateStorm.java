package dev.bolo.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Every note sent {@code --copies} times at once to the gateway, each copy resent as a phone would
 * after a 503 or a closed connection: the provider calls must equal the distinct notes.
 */
final class DuplicateStorm {

  private DuplicateStorm() {}

  /**
   * Sends the storm once the gateway and the stand-in are idle and appends its line to {@code out}.
   */
  static void run(StringBuilder out, int providerPort, int gatewayPort, GatewayLoadOptions options)
      throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    awaitIdleGateway(http, gatewayPort);
    long callsBefore = ProviderCalls.countOnceQuiet(http, providerPort);
    byte[] template = UploadTemplate.body(options.noteKb() * 1024);
    int placeholder = UploadTemplate.placeholderAt(template);
    AtomicLong ok = new AtomicLong();
    AtomicLong replayed = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    AtomicLong resent = new AtomicLong();
    String nonce = Long.toString(System.nanoTime() % 100_000_000L);
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<?>> sent = new ArrayList<>();
      for (int note = 0; note < options.stormNotes(); note++) {
        byte[] body = template.clone();
        byte[] id =
            String.format(Locale.ROOT, "storm%8s%011d", nonce, note)
                .replace(' ', '0')
                .getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(id, 0, body, placeholder, UploadTemplate.ID_LENGTH);
        for (int copy = 0; copy < options.copies(); copy++) {
          sent.add(
              threads.submit(
                  () -> {
                    HttpRequest request =
                        HttpRequest.newBuilder(
                                URI.create(
                                    "http://127.0.0.1:" + gatewayPort + "/v1/audio/transcriptions"))
                            .header("Authorization", "Bearer " + LoadTargets.TOKEN)
                            .header("Content-Type", UploadTemplate.CONTENT_TYPE)
                            .timeout(Duration.ofSeconds(60))
                            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                            .build();
                    HttpResponse<String> response = sendAsAPhone(http, request, resent);
                    if (response != null && response.statusCode() == 200) {
                      ok.incrementAndGet();
                      if (response.headers().firstValue("Idempotent-Replayed").isPresent()) {
                        replayed.incrementAndGet();
                      }
                    } else {
                      failed.incrementAndGet();
                    }
                    return null;
                  }));
        }
      }
      for (Future<?> future : sent) {
        future.get(600, TimeUnit.SECONDS);
      }
    }
    long calls = ProviderCalls.count(http, providerPort) - callsBefore;
    out.append(
        String.format(
            Locale.ROOT,
            "%nDuplicate storm: %d notes x %d copies at once: %d answered 200 (%d replayed),"
                + " %d failed, %d resends after a 503 or a closed connection; provider calls %d"
                + " (%s).%n",
            options.stormNotes(),
            options.copies(),
            ok.get(),
            replayed.get(),
            failed.get(),
            resent.get(),
            calls,
            calls == options.stormNotes() ? "= distinct notes" : "NOT equal to distinct notes"));
  }

  /**
   * Waits until the gateway serves no transcription request (its {@code
   * bolo_transcription_requests_in_flight} gauge): requests the load generator abandoned when the
   * rounds ended are still reaching the provider, and a gateway slowed by the load may pause longer
   * than {@link ProviderCalls#countOnceQuiet} waits between two counts.
   */
  private static void awaitIdleGateway(HttpClient http, int gatewayPort) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    HttpRequest metrics =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gatewayPort + "/metrics"))
            .timeout(Duration.ofSeconds(10))
            .build();
    Pattern inFlight =
        Pattern.compile("(?m)^bolo_transcription_requests_in_flight(?:\\{[^}]*\\})? ([0-9.]+)$");
    while (System.nanoTime() < deadline) {
      Matcher matcher =
          inFlight.matcher(http.send(metrics, HttpResponse.BodyHandlers.ofString()).body());
      if (matcher.find() && Double.parseDouble(matcher.group(1)) == 0) {
        return;
      }
      Thread.sleep(500);
    }
    throw new IllegalStateException("the gateway still served requests two minutes after the load");
  }

  /**
   * Sends as a phone does: a 503 (the gateway's admission control refusing a body past what it can
   * take, with {@code Retry-After}) or a connection the gateway closed while the body was still
   * going is sent again after the pause asked for (2 s when none), up to 6 attempts; null if every
   * attempt broke.
   */
  private static @Nullable HttpResponse<String> sendAsAPhone(
      HttpClient http, HttpRequest request, AtomicLong resent) throws InterruptedException {
    HttpResponse<String> response = null;
    for (int attempt = 1; attempt <= 6; attempt++) {
      long pauseSeconds = 2;
      try {
        response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 503) {
          return response;
        }
        pauseSeconds = response.headers().firstValue("Retry-After").map(Long::parseLong).orElse(2L);
      } catch (IOException e) {
        response = null;
      }
      if (attempt < 6) {
        resent.incrementAndGet();
        Thread.sleep(Math.min(10, pauseSeconds) * 1000);
      }
    }
    return response;
  }
}
