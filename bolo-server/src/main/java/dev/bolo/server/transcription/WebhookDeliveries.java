package dev.bolo.server.transcription;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bolo.server.ledger.JobRecord;
import dev.bolo.server.ledger.LedgerException;
import dev.bolo.server.ledger.WebhookOutbox;
import dev.bolo.server.time.Sleeper;
import dev.bolo.server.tracing.JobSpans;
import dev.bolo.server.webhook.WebhookSecrets;
import dev.bolo.server.webhook.WebhookSender;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.trace.Span;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.DoubleSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers the webhook events of ended jobs from the outbox, at least once: each due event is sent
 * through the {@link WebhookSender} signed with its device's secrets, with the same {@code
 * webhook-id} on every attempt; a receiver that does not answer 2xx is tried again after 5 s,
 * doubling up to an hour, each pause stretched by up to a fifth at random (so receivers coming back
 * are not met by every gateway at once), for 24 hours from the job's end, then the event is marked
 * failed. An address the sender refuses is never tried again. Each attempt is a span of the trace
 * that ended the job ({@link JobSpans#delivery}), sent on to the receiver. Thread safe.
 */
final class WebhookDeliveries implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(WebhookDeliveries.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final SecureRandom IDS = new SecureRandom();

  /** The first pause after a failed attempt; each next one doubles (Standard Webhooks retries). */
  static final Duration FIRST_PAUSE = Duration.ofSeconds(5);

  /** The longest pause between two attempts. */
  static final Duration LONGEST_PAUSE = Duration.ofHours(1);

  /** How long an event is tried from its job's end before it is marked failed (PROTOCOL v4). */
  static final Duration GIVE_UP_AFTER = Duration.ofHours(24);

  /**
   * How long an attempt holds its event from other instances: past the sender's 10 s timeout, so
   * that an instance dying mid-attempt leaves the event due again soon.
   */
  static final Duration ATTEMPT_HOLD = Duration.ofMinutes(1);

  /** How often due events are looked for. */
  static final Duration POLL = Duration.ofSeconds(1);

  /** Events taken per look; the rest wait for the next. */
  private static final int BATCH = 32;

  private final WebhookOutbox outbox;
  private final WebhookSender sender;
  private final WebhookSecrets secrets;
  private final Clock clock;
  private final Sleeper sleeper;
  private final DoubleSupplier jitter;
  private final MeterRegistry metrics;
  private final JobSpans spans;
  private volatile long pending;
  private volatile boolean closed;
  private volatile @Nullable Thread loop;

  /**
   * @param jitter a number in [0, 1) for each pause: its share of the fifth added to it
   * @param spans each attempt's span
   */
  WebhookDeliveries(
      WebhookOutbox outbox,
      WebhookSender sender,
      WebhookSecrets secrets,
      Clock clock,
      Sleeper sleeper,
      DoubleSupplier jitter,
      MeterRegistry metrics,
      JobSpans spans) {
    this.outbox = Objects.requireNonNull(outbox, "outbox");
    this.sender = Objects.requireNonNull(sender, "sender");
    this.secrets = Objects.requireNonNull(secrets, "secrets");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    this.jitter = Objects.requireNonNull(jitter, "jitter");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.spans = Objects.requireNonNull(spans, "spans");
  }

  /**
   * The event telling {@code ended}'s webhook that it ended, when it has one: {@code
   * {"type":"job.succeeded","timestamp":…,"data":{…the job…}}} with a fresh {@code webhook-id}, in
   * the trace of the span current as the job ends (its run's, or the cancelling request's).
   */
  static Optional<WebhookOutbox.Event> eventOf(JobRecord ended, Instant now) {
    String url = ended.webhookUrl();
    if (url == null) {
      return Optional.empty();
    }
    String type = "job." + ended.status().wireName();
    ObjectNode body = JSON.createObjectNode();
    body.put("type", type);
    body.put("timestamp", now.toString());
    body.set("data", JobView.of(ended, Optional.empty()));
    byte[] id = new byte[16];
    IDS.nextBytes(id);
    try {
      return Optional.of(
          new WebhookOutbox.Event(
              "msg_" + HexFormat.of().formatHex(id),
              ended.id(),
              ended.device(),
              url,
              type,
              JSON.writeValueAsString(body),
              0,
              now,
              now,
              JobSpans.traceparent()));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a tree of JSON always serialises", e);
    }
  }

  /** Starts delivering in a thread of its own. */
  void start() {
    loop = Thread.ofVirtual().name("bolo-webhooks").start(this::loop);
  }

  private void loop() {
    while (!closed) {
      try {
        deliverDue();
        pending = outbox.pending();
      } catch (LedgerException e) {
        log.warn("webhooks cannot be delivered now: {}", e.getMessage());
      }
      try {
        sleeper.sleep(POLL);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /**
   * How many events waited for delivery when the loop last looked (about a second ago): read by
   * {@code /readyz}, which must not wait for a database that is away.
   */
  long pending() {
    return pending;
  }

  /** Makes one attempt of every event due now; how many were attempted. */
  int deliverDue() {
    Instant now = clock.instant();
    List<WebhookOutbox.Event> due = outbox.due(now, BATCH);
    int attempted = 0;
    for (WebhookOutbox.Event event : due) {
      if (closed) {
        break;
      }
      // Another instance took it first: its attempt is under way.
      if (!outbox.take(event, now.plus(ATTEMPT_HOLD))) {
        continue;
      }
      attempt(event);
      attempted++;
    }
    return attempted;
  }

  private void attempt(WebhookOutbox.Event event) {
    int attempts = event.attempts() + 1;
    List<String> signing = secrets.signingSecrets(event.device());
    // The device was removed: nobody is left to sign for, or to tell.
    if (signing.isEmpty()) {
      outbox.attempted(
          event.id(),
          WebhookOutbox.State.BLOCKED,
          attempts,
          clock.instant(),
          0,
          "the device is gone");
      return;
    }
    Span span = spans.delivery(event.url(), event.traceparent(), event.jobId(), attempts);
    WebhookSender.Delivery delivery;
    try {
      delivery =
          sender.send(
              event.url(),
              new WebhookSender.Message(
                  event.id(),
                  clock.instant(),
                  event.body().getBytes(StandardCharsets.UTF_8),
                  signing,
                  spans.headers(span)));
    } catch (RuntimeException e) {
      // The sender answers every outcome; a fault of its own still ends the attempt's span.
      span.end();
      throw e;
    }
    String outcome = delivery.outcome().name().toLowerCase(java.util.Locale.ROOT);
    JobSpans.delivered(span, delivery.status(), outcome);
    Instant now = clock.instant();
    metrics.counter("bolo_webhook_deliveries_total", "outcome", outcome).increment();
    switch (delivery.outcome()) {
      case DELIVERED ->
          outbox.attempted(
              event.id(),
              WebhookOutbox.State.DELIVERED,
              attempts,
              now,
              delivery.status(),
              delivery.detail());
      case BLOCKED -> {
        log.warn("webhook {} not sent: {}", event.id(), delivery.detail());
        outbox.attempted(
            event.id(),
            WebhookOutbox.State.BLOCKED,
            attempts,
            now,
            delivery.status(),
            delivery.detail());
      }
      case REJECTED, UNREACHABLE -> {
        Instant next = now.plus(pauseAfter(attempts));
        boolean givenUp = next.isAfter(event.createdAt().plus(GIVE_UP_AFTER));
        if (givenUp) {
          log.warn(
              "webhook {} given up after {} attempts: {}", event.id(), attempts, delivery.detail());
        }
        outbox.attempted(
            event.id(),
            givenUp ? WebhookOutbox.State.FAILED : WebhookOutbox.State.PENDING,
            attempts,
            next,
            delivery.status(),
            delivery.detail());
      }
    }
  }

  /**
   * The pause after the {@code attempts}-th failed attempt: 5 s doubling to an hour, plus jitter.
   */
  Duration pauseAfter(int attempts) {
    long pause = FIRST_PAUSE.toMillis() << Math.min(attempts - 1, 20);
    long capped = Math.min(pause, LONGEST_PAUSE.toMillis());
    return Duration.ofMillis(capped + (long) (capped * 0.2 * jitter.getAsDouble()));
  }

  @Override
  public void close() {
    closed = true;
    Thread running = loop;
    if (running != null) {
      running.interrupt();
    }
  }
}
