package dev.bolo.server.transcription;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.DurableLedger;
import dev.bolo.server.ledger.JobRecord;
import dev.bolo.server.ledger.JobStatus;
import dev.bolo.server.ledger.JobStore;
import dev.bolo.server.ledger.Ledger;
import dev.bolo.server.ledger.LedgerConfig;
import dev.bolo.server.ledger.WebhookOutbox;
import dev.bolo.server.testing.SystemTime;
import dev.bolo.server.tracing.JobSpans;
import dev.bolo.server.tracing.Tracing;
import dev.bolo.server.webhook.WebhookSender;
import dev.bolo.testkit.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The outbox's delivery on a clock the test moves: an ended job's event is sent with the same
 * {@code webhook-id} on every attempt, retried with growing pauses while the receiver is away,
 * delivered on the first attempt after it returns, given up after 24 hours, never retried once the
 * address is refused.
 */
class WebhookDeliveriesTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant START = Instant.parse("2026-12-01T10:00:00Z");

  @TempDir Path dir;
  DurableLedger ledger;
  final MutableClock clock = MutableClock.at(START);
  final List<Attempt> attempts = new ArrayList<>();
  final SimpleMeterRegistry metrics = new SimpleMeterRegistry();
  @Nullable WebhookDeliveries deliveries;

  record Attempt(Instant at, String id, String body, List<String> secrets) {}

  @BeforeEach
  void open() {
    ledger = Ledger.jdbc(LedgerConfig.embedded(dir), SystemTime.ofLedger());
    ledger.add(new Device("alpha"));
  }

  @AfterEach
  void close() {
    ledger.close();
  }

  @Test
  void aReceiverAwayForThreeHoursIsDeliveredToOnTheFirstAttemptAfterItReturns() throws Exception {
    Instant back = START.plus(Duration.ofHours(3));
    String event =
        endedJobEvent(
            at ->
                at.isBefore(back)
                    ? new WebhookSender.Delivery(
                        WebhookSender.Outcome.UNREACHABLE, 0, "connection refused")
                    : new WebhookSender.Delivery(
                        WebhookSender.Outcome.DELIVERED, 204, "delivered"));

    runFor(Duration.ofHours(25));

    assertThat(ledger.webhookOutbox().state(event)).contains(WebhookOutbox.State.DELIVERED);
    Attempt last = attempts.getLast();
    assertThat(last.at()).isAfterOrEqualTo(back);
    // Delivered on the retry after the receiver came back, and not tried again after that.
    assertThat(attempts.get(attempts.size() - 2).at()).isBefore(back);
    assertThat(Duration.between(back, last.at())).isLessThanOrEqualTo(Duration.ofMinutes(72));
    assertThat(attempts).extracting(Attempt::id).containsOnly(event);
    assertThat(attempts).extracting(Attempt::body).containsOnly(attempts.getFirst().body());
    assertThat(attempts).extracting(Attempt::secrets).containsOnly(List.of("whsec_test"));
    // 5 s doubling up to an hour: a dozen attempts in three hours, not one a minute.
    assertThat(attempts).hasSizeBetween(10, 14);
    JsonNode body = JSON.readTree(last.body());
    assertThat(body.get("type").asText()).isEqualTo("job.succeeded");
    assertThat(body.at("/data/status").asText()).isEqualTo("succeeded");
    assertThat(body.at("/data/metadata/order").asText()).isEqualTo("42");
  }

  @Test
  void aReceiverThatNeverAnswersIsGivenUpAfterADay() {
    String event =
        endedJobEvent(
            at -> new WebhookSender.Delivery(WebhookSender.Outcome.REJECTED, 500, "answered 500"));

    runFor(Duration.ofHours(30));

    assertThat(ledger.webhookOutbox().state(event)).contains(WebhookOutbox.State.FAILED);
    assertThat(attempts.getLast().at()).isBefore(START.plus(Duration.ofHours(24)));
    assertThat(attempts).hasSizeBetween(25, 35);
  }

  @Test
  void anAddressTheSenderRefusesIsNeverTriedAgain() {
    String event =
        endedJobEvent(
            at ->
                new WebhookSender.Delivery(WebhookSender.Outcome.BLOCKED, 0, "a private address"));

    runFor(Duration.ofHours(2));

    assertThat(ledger.webhookOutbox().state(event)).contains(WebhookOutbox.State.BLOCKED);
    assertThat(attempts).hasSize(1);
    assertThat(metrics.counter("bolo_webhook_deliveries_total", "outcome", "blocked").count())
        .isEqualTo(1);
  }

  /** Ends a job with a webhook; the receiver answers as {@code receiver} says at each time. */
  private String endedJobEvent(Function<Instant, WebhookSender.Delivery> receiver) {
    JobStore jobs = ledger.jobs();
    JobRecord job =
        JobRecord.queued(
            "job_1",
            "alpha",
            "{}",
            "a".repeat(64),
            4,
            null,
            null,
            "https://receiver.example/hook",
            "{\"order\":\"42\"}",
            START,
            null);
    assertThat(
            jobs.create(
                job, new ByteArrayInputStream(new byte[4]), new JobStore.Bounds(10, 1 << 20)))
        .isInstanceOf(JobStore.Creation.Created.class);
    JobRecord ended =
        jobs.finish(
                job.id(),
                new JobStore.Ending(JobStatus.SUCCEEDED, "{\"text\":\"hello\"}", null, 1000L),
                START,
                done -> WebhookDeliveries.eventOf(done, START))
            .orElseThrow();
    assertThat(ended.status()).isEqualTo(JobStatus.SUCCEEDED);
    WebhookSender sender =
        (url, message) -> {
          attempts.add(
              new Attempt(
                  clock.instant(),
                  message.id(),
                  new String(message.body(), StandardCharsets.UTF_8),
                  message.secrets()));
          return receiver.apply(clock.instant());
        };
    deliveries =
        new WebhookDeliveries(
            ledger.webhookOutbox(),
            sender,
            device -> List.of("whsec_test"),
            clock,
            pause -> {},
            () -> 0.5,
            metrics,
            new JobSpans(Tracing.off()));
    return ledger.webhookOutbox().due(START, 1).getFirst().id();
  }

  /** Looks for due events every 30 seconds of the clock for {@code span}. */
  private void runFor(Duration span) {
    Instant end = clock.instant().plus(span);
    while (clock.instant().isBefore(end)) {
      java.util.Objects.requireNonNull(deliveries).deliverDue();
      clock.advance(Duration.ofSeconds(30));
    }
  }
}
