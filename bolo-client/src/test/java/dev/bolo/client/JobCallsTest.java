package dev.bolo.client;

import static dev.bolo.client.JsonAnswers.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;

/** The SDK's job calls: their requests, their answers, and their resends on a fake clock. */
class JobCallsTest {

  private static final String QUEUED =
      "{\"id\":\"job_1\",\"object\":\"job\",\"status\":\"queued\","
          + "\"created_at\":\"2026-12-01T10:00:00Z\",\"finished_at\":null,"
          + "\"audio_sha256\":\"ab12\",\"duration_ms\":1500,"
          + "\"progress\":{\"seconds_done\":0.0,\"seconds_total\":1.5},"
          + "\"result\":null,\"error\":null,\"webhook_url\":\"https://hooks.example/bolo\","
          + "\"metadata\":{\"order\":\"A-17\"}}";

  private static final String SUCCEEDED =
      "{\"id\":\"job_2\",\"object\":\"job\",\"status\":\"succeeded\","
          + "\"created_at\":\"2026-12-01T10:00:00Z\",\"finished_at\":\"2026-12-01T10:00:04Z\","
          + "\"audio_sha256\":\"ab12\",\"duration_ms\":1500,"
          + "\"progress\":{\"seconds_done\":1.5,\"seconds_total\":1.5},"
          + "\"result\":{\"text\":\"buy milk\",\"deduplicated\":false,\"audio_sha256\":\"ab12\","
          + "\"duration_ms\":1500,\"request_id\":\"job_2\",\"engine\":\"offline\"},"
          + "\"error\":null,\"webhook_url\":null,\"metadata\":{}}";

  private static final String FAILED =
      "{\"id\":\"job_3\",\"object\":\"job\",\"status\":\"failed\","
          + "\"created_at\":\"2026-12-01T10:00:00Z\",\"finished_at\":\"2026-12-01T10:00:04Z\","
          + "\"audio_sha256\":\"ab12\",\"duration_ms\":null,"
          + "\"progress\":{\"seconds_done\":0.0,\"seconds_total\":0.0},\"result\":null,"
          + "\"error\":{\"error\":\"the engine refused\",\"code\":\"upstream_rejected\","
          + "\"request_id\":\"job_3\"},\"webhook_url\":null,\"metadata\":{}}";

  @StartStop private final MockWebServer server = new MockWebServer();

  private final FakeTime time = new FakeTime();
  private final FakeScheduler scheduler = new FakeScheduler(time);
  private final VoiceNote note =
      VoiceNote.ofBytes(NoteLengthTest.wav(48000, 48000, false), "note.wav");

  private BoloClient client() {
    return BoloClient.builder()
        .baseUrl(server.url("/bolo/"))
        .token("device-token")
        .policy(ResendPolicy.standard().withoutJitter())
        .timing(scheduler.timing())
        .build();
  }

  @Test
  void aSubmissionSendsTheNoteItsSettingsItsWebhookAndItsMetadataAndReadsTheQueuedJob()
      throws Exception {
    server.enqueue(json(202, QUEUED));

    JobOutcome<Job> outcome =
        client()
            .submitJob(
                note,
                TranscriptionOptions.defaults().withLanguage("en").withModel("m1"),
                JobOptions.none()
                    .withWebhookUrl("https://hooks.example/bolo")
                    .withMetadata("order", "A-17")
                    .withMetadata("quote\"d", "line\nbreak"),
                CallOptions.defaults().withIdempotencyKey("order-A-17"));

    RecordedRequest request = take();
    assertThat(request.getMethod()).isEqualTo("POST");
    assertThat(request.getUrl().encodedPath()).isEqualTo("/bolo/v1/jobs");
    assertThat(request.getHeaders().get("Authorization")).isEqualTo("Bearer device-token");
    assertThat(request.getHeaders().get("Idempotency-Key")).isEqualTo("\"order-A-17\"");
    assertThat(request.getHeaders().get("X-Bolo-Audio-Sha256")).isEqualTo(note.sha256());
    assertThat(request.getHeaders().get("X-Bolo-Audio-Duration-Ms")).isEqualTo("1500");
    assertThat(request.getHeaders().get("X-Bolo-Request-Id")).endsWith("-a1");
    assertThat(Objects.requireNonNull(request.getBody()).string(StandardCharsets.UTF_8))
        .contains("name=\"audio\"; filename=\"note.wav\"")
        .contains("name=\"language\"\r\n\r\nen\r\n")
        .contains("name=\"model\"\r\n\r\nm1\r\n")
        .contains("name=\"webhook_url\"\r\n\r\nhttps://hooks.example/bolo\r\n")
        .contains(
            "name=\"metadata\"\r\n\r\n"
                + "{\"order\":\"A-17\",\"quote\\\"d\":\"line\\u000abreak\"}\r\n")
        .doesNotContain("name=\"prompt\"");
    Job job = Objects.requireNonNull(outcome.answerOrNull());
    assertThat(job)
        .isEqualTo(
            new Job(
                "job_1",
                Job.Status.QUEUED,
                Instant.parse("2026-12-01T10:00:00Z"),
                null,
                "ab12",
                1500L,
                0.0,
                1.5,
                null,
                null,
                "https://hooks.example/bolo",
                Map.of("order", "A-17")));
    assertThat(job.isEnded()).isFalse();
  }

  @Test
  void aLostAnswerIsResentWithTheSameKeySoTheGatewayAnswersTheSameJob() throws Exception {
    server.enqueue(json(503, "{\"error\":\"busy\",\"code\":\"server_unavailable\"}"));
    server.enqueue(json(202, QUEUED).newBuilder().addHeader("Idempotent-Replayed", "true").build());

    JobOutcome<Job> outcome =
        client()
            .submitJob(
                note, TranscriptionOptions.defaults(), JobOptions.none(), CallOptions.defaults());

    assertThat(outcome).isInstanceOf(JobOutcome.Answered.class);
    assertThat(((JobOutcome.Answered<Job>) outcome).replayed()).isTrue();
    assertThat(outcome.attempts()).isEqualTo(2);
    RecordedRequest first = take();
    RecordedRequest second = take();
    assertThat(first.getHeaders().get("Idempotency-Key"))
        .isEqualTo(second.getHeaders().get("Idempotency-Key"))
        .matches("\"[0-9a-f-]{36}\"");
    assertThat(second.getHeaders().get("X-Bolo-Request-Id")).endsWith("-a2");
    assertThat(scheduler.pauses()).containsExactly(ResendPolicy.standard().pauses().get(0));
  }

  @Test
  void aRefusedWebhookUrlIsRefusedWithoutAResend() throws Exception {
    server.enqueue(
        json(
            400,
            "{\"error\":\"webhook_url must be https\",\"code\":\"invalid_parameter\","
                + "\"request_id\":\"r-1\"}"));

    JobOutcome<Job> outcome =
        client()
            .submitJob(
                note,
                TranscriptionOptions.defaults(),
                JobOptions.none().withWebhookUrl("http://hooks.example/"),
                CallOptions.defaults());

    assertThat(outcome)
        .isEqualTo(
            new JobOutcome.Refused<Job>(
                new Failure.Http(
                    400, "invalid_parameter", "webhook_url must be https", "r-1", null),
                1));
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void aJobOfAFinishedUploadIsJson() throws Exception {
    server.enqueue(json(202, SUCCEEDED));

    JobOutcome<Job> outcome =
        client()
            .submitJob("up_9", JobOptions.none().withMetadata("a", "b"), CallOptions.defaults());

    RecordedRequest request = take();
    assertThat(request.getHeaders().get("Content-Type")).startsWith("application/json");
    assertThat(Objects.requireNonNull(request.getBody()).string(StandardCharsets.UTF_8))
        .isEqualTo("{\"upload_id\":\"up_9\",\"metadata\":{\"a\":\"b\"}}");
    Job job = Objects.requireNonNull(outcome.answerOrNull());
    assertThat(job.result())
        .isEqualTo(new Transcript("buy milk", false, "ab12", 1500L, "job_2", "offline"));
    assertThat(job.finishedAt()).isEqualTo(Instant.parse("2026-12-01T10:00:04Z"));
    assertThat(job.isEnded()).isTrue();
  }

  @Test
  void aJobIsReadListedAndCancelledAtItsOwnAddress() throws Exception {
    server.enqueue(json(200, FAILED));
    server.enqueue(
        json(
            200,
            "{\"object\":\"list\",\"data\":[" + SUCCEEDED + "," + FAILED + "],\"has_more\":true}"));
    server.enqueue(json(200, QUEUED.replace("queued", "cancelled")));
    BoloClient client = client();

    Job failed = Objects.requireNonNull(client.job("job_3").answerOrNull());
    JobList page = Objects.requireNonNull(client.jobs(Job.Status.FAILED, "job_9").answerOrNull());
    Job cancelled = Objects.requireNonNull(client.cancelJob("job_1").answerOrNull());

    RecordedRequest one = take();
    assertThat(one.getMethod()).isEqualTo("GET");
    assertThat(one.getUrl().encodedPath()).isEqualTo("/bolo/v1/jobs/job_3");
    assertThat(one.getHeaders().get("Idempotency-Key")).isNull();
    RecordedRequest list = take();
    assertThat(list.getUrl().encodedPath()).isEqualTo("/bolo/v1/jobs");
    assertThat(list.getUrl().queryParameter("status")).isEqualTo("failed");
    assertThat(list.getUrl().queryParameter("after")).isEqualTo("job_9");
    RecordedRequest delete = take();
    assertThat(delete.getMethod()).isEqualTo("DELETE");
    assertThat(delete.getUrl().encodedPath()).isEqualTo("/bolo/v1/jobs/job_1");

    assertThat(failed.error())
        .isEqualTo(new JobError("upstream_rejected", "the engine refused", "job_3"));
    assertThat(failed.durationMs()).isNull();
    assertThat(page.jobs()).extracting(Job::id).containsExactly("job_2", "job_3");
    assertThat(page.nextAfter()).isEqualTo("job_3");
    assertThat(cancelled.status()).isEqualTo(Job.Status.CANCELLED);
  }

  @Test
  void anotherDevicesJobIsNotFound() throws Exception {
    server.enqueue(json(404, "{\"error\":\"no such job\",\"code\":\"not_found\"}"));

    JobOutcome<Job> outcome = client().job("job_x");

    assertThat(outcome).isInstanceOf(JobOutcome.Refused.class);
    assertThat(((JobOutcome.Refused<Job>) outcome).error().status()).isEqualTo(404);
    assertThat(outcome.answerOrNull()).isNull();
  }

  @Test
  void aSuccessThatIsNotAJobIsAnInvalidResponse() throws Exception {
    server.enqueue(new MockResponse.Builder().body("<html>captive portal</html>").build());

    JobOutcome<Job> outcome = client().job("job_1");

    assertThat(outcome).isInstanceOf(JobOutcome.Refused.class);
    assertThat(((JobOutcome.Refused<Job>) outcome).error().code()).isEqualTo("invalid_response");
  }

  @Test
  void aGatewayAwayIsGivenUpOnAfterThePolicysAttempts() {
    for (int i = 0; i < ResendPolicy.standard().maxAttempts(); i++) {
      server.enqueue(json(503, "{\"error\":\"busy\",\"code\":\"upstream_unavailable\"}"));
    }

    JobOutcome<Job> outcome = client().cancelJob("job_1");

    assertThat(outcome).isInstanceOf(JobOutcome.GaveUp.class);
    assertThat(outcome.attempts()).isEqualTo(ResendPolicy.standard().maxAttempts());
  }

  @Test
  void anInterruptedThreadSendsNothing() {
    Thread.currentThread().interrupt();
    try {
      assertThat(client().job("job_1")).isEqualTo(new JobOutcome.Cancelled<Job>(0));
    } finally {
      assertThat(Thread.interrupted()).isTrue();
    }
    assertThat(server.getRequestCount()).isZero();
  }

  @Test
  void metadataBeyondTheGatewaysBoundsIsTheCallersBug() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new JobOptions(null, Map.of("k", "x".repeat(501))))
        .withMessageContaining("500");
    Map<String, String> many = new java.util.HashMap<>();
    for (int i = 0; i < 17; i++) {
      many.put("k" + i, "v");
    }
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new JobOptions(null, many))
        .withMessage("metadata holds at most 16 values: 17");
  }

  private RecordedRequest take() throws InterruptedException {
    return Objects.requireNonNull(server.takeRequest(5, TimeUnit.SECONDS), "no request in 5 s");
  }
}
