package dev.bolo.server.http;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.jspecify.annotations.Nullable;

/**
 * Counts every HTTP answer by endpoint, status and outcome, whoever wrote it: a handler, an
 * exception mapper, or Jetty itself (404, 405, 431). It wraps the whole server, so a 401 or a 413
 * refused before any handler logic is counted like a transcript. Thread safe.
 *
 * <p>The outcome is the error code of the body ({@code unauthorized}, {@code audio_too_large}, …),
 * noted by whoever rendered it through {@link #noteOutcome}; {@code ok} for a success; {@code
 * client_error} or {@code server_error} for an answer nobody noted.
 */
public final class RequestMetrics extends Handler.Wrapper {

  /** The request attribute holding this request's {@link Answer}. */
  static final String ANSWER = RequestMetrics.class.getName() + ".answer";

  /**
   * The endpoints counted by name; any other path is counted as {@code other}, so a scanner trying
   * a thousand paths does not make a thousand time series.
   */
  private static final Set<String> ENDPOINTS =
      Set.of(
          "/v1/transcriptions",
          "/v1/audio/transcriptions",
          "/v1/audio/translations",
          "/v1/models",
          "/healthz",
          "/readyz",
          "/metrics");

  /** Request duration buckets: a probe answers in milliseconds, a long note in minutes. */
  private static final Duration[] DURATION_BUCKETS = {
    Duration.ofMillis(10),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofSeconds(2),
    Duration.ofSeconds(5),
    Duration.ofSeconds(10),
    Duration.ofSeconds(30),
    Duration.ofSeconds(60),
    Duration.ofMinutes(2),
    Duration.ofMinutes(5),
    Duration.ofMinutes(15)
  };

  private final MeterRegistry registry;
  private final LongSupplier ticker;
  private final AtomicInteger open = new AtomicInteger();

  /** Counts into {@code registry}, timing each answer on {@code ticker} (elapsed nanoseconds). */
  public RequestMetrics(MeterRegistry registry, LongSupplier ticker) {
    this.registry = registry;
    this.ticker = ticker;
    Gauge.builder("bolo_http_requests_active", open, AtomicInteger::get)
        .description("HTTP requests being served now, of every endpoint")
        .register(registry);
  }

  /**
   * Notes the outcome of the answer being written for {@code request}; the last one noted counts.
   *
   * @param code the error code of the body, e.g. {@code rate_limited}
   */
  static void noteOutcome(HttpServletRequest request, String code) {
    if (request.getAttribute(ANSWER) instanceof Answer answer) {
      answer.outcome = code;
    }
  }

  /** The same for a request Jetty answers itself. */
  static void noteOutcome(Request request, String code) {
    if (request.getAttribute(ANSWER) instanceof Answer answer) {
      answer.outcome = code;
    }
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    Answer answer = new Answer(endpointOf(Request.getPathInContext(request)), ticker.getAsLong());
    request.setAttribute(ANSWER, answer);
    open.incrementAndGet();
    Callback counted =
        new Callback.Nested(callback) {
          @Override
          public void succeeded() {
            record(answer, response.getStatus(), false);
            super.succeeded();
          }

          @Override
          public void failed(Throwable failure) {
            record(answer, response.getStatus(), true);
            super.failed(failure);
          }
        };
    boolean handled;
    try {
      handled = super.handle(request, response, counted);
    } catch (Exception | Error e) {
      record(answer, 500, true);
      throw e;
    }
    if (!handled) {
      // Jetty answers 404 itself, with the original callback.
      record(answer, 404, false);
    }
    return handled;
  }

  private void record(Answer answer, int status, boolean broken) {
    if (!answer.recorded.compareAndSet(false, true)) {
      return;
    }
    open.decrementAndGet();
    String outcome = outcomeOf(answer.outcome, status, broken);
    String code = Integer.toString(status);
    Counter.builder("bolo_http_requests_total")
        .description(
            "HTTP requests answered, by endpoint, status and outcome (ok, the error code of the"
                + " body, or aborted when the connection broke)")
        .tags("endpoint", answer.endpoint, "status", code, "outcome", outcome)
        .register(registry)
        .increment();
    Timer.builder("bolo_http_request_duration_seconds")
        .description("Time from a request's headers to the end of its answer, by endpoint")
        .tags("endpoint", answer.endpoint)
        .serviceLevelObjectives(DURATION_BUCKETS)
        .register(registry)
        .record(ticker.getAsLong() - answer.started, TimeUnit.NANOSECONDS);
  }

  /**
   * Milliseconds since this wrapper began {@code request}, on its ticker; null when it never saw
   * the request (Jetty refused it while parsing).
   */
  @Nullable Long millisSinceStart(Request request) {
    return request.getAttribute(ANSWER) instanceof Answer answer
        ? (ticker.getAsLong() - answer.started) / 1_000_000
        : null;
  }

  private static String outcomeOf(@Nullable String noted, int status, boolean broken) {
    // The client or the network broke the exchange: whatever was noted never fully arrived.
    if (broken) {
      return "aborted";
    }
    if (noted != null) {
      return noted;
    }
    if (status < 400) {
      return "ok";
    }
    return status < 500 ? "client_error" : "server_error";
  }

  private static String endpointOf(String path) {
    return ENDPOINTS.contains(path) ? path : "other";
  }

  /** What is known of one request's answer; written by the request's threads, read once. */
  static final class Answer {
    final String endpoint;
    final long started;
    final AtomicBoolean recorded = new AtomicBoolean();
    volatile @Nullable String outcome;

    Answer(String endpoint, long started) {
      this.endpoint = endpoint;
      this.started = started;
    }
  }
}
