package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.server.testing.TraceReceiver;
import dev.bolo.server.testing.TraceReceiver.Received;
import dev.bolo.server.transcription.Jobs;
import dev.bolo.server.webhook.HostResolver;
import dev.bolo.server.webhook.WebhookCalls;
import dev.bolo.testkit.Await;
import dev.bolo.testkit.MutableClock;
import io.opentelemetry.proto.trace.v1.Span.SpanKind;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job's story as traces (docs/operations/tracing.md): the request that makes the job, the job's
 * run as a trace of its own linked to that request, the note's spans under the run, and each
 * webhook delivery attempt as a client span under the run whose context reaches the receiver. A
 * gateway with traces on, its own webhook sender calling a receiver on loopback, and the OTLP
 * receiver of {@link TracedNoteTest}.
 */
class TracedJobTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Standard Webhooks' example secret: a real one, since the real sender signs with it. */
  private static final String WEBHOOK_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

  /** A key the receiver keeps in its URL's query, which no span may show. */
  private static final String RECEIVER_KEY = "receiver-key-7Hq2";

  @TempDir Path dir;
  private final MutableClock clock = MutableClock.at(Instant.parse("2026-12-01T10:00:00Z"));
  private FakeProvider provider;
  private TraceReceiver traces;
  private MockWebServer hooks;
  private Gateway gateway;

  @BeforeEach
  void start() throws Exception {
    provider = new FakeProvider();
    traces = new TraceReceiver();
    hooks = new MockWebServer();
    hooks.start();
    List<String> receivers = List.of("127.0.0.1:" + hooks.getPort());
    Jobs.Webhooks webhooks =
        new Jobs.Webhooks(
            WebhookCalls.policy(receivers, HostResolver.system()),
            WebhookCalls.sender(receivers, HostResolver.system(), WebhookCalls.TIMEOUT),
            device -> List.of(WEBHOOK_SECRET));
    Map<String, String> env = new HashMap<>(Gateway.openAiEnvironment(provider, dir));
    env.put("OTEL_EXPORTER_OTLP_ENDPOINT", traces.endpoint());
    // Small batches, sent soon: the receiver sees the spans shortly after they end.
    env.put("OTEL_BSP_SCHEDULE_DELAY", "20");
    gateway = Gateway.withWebhooks(env, clock, webhooks);
  }

  @AfterEach
  void stop() throws Exception {
    try (TraceReceiver t = traces;
        MockWebServer h = hooks;
        FakeProvider p = provider;
        Gateway g = gateway) {
      // Closed in reverse order: the gateway first.
    }
  }

  @Test
  void aJobRunsInATraceLinkedToItsRequestAndEachWebhookAttemptIsAChildThatReachesTheReceiver()
      throws Exception {
    hooks.enqueue(new MockResponse.Builder().code(500).build());
    hooks.enqueue(new MockResponse.Builder().code(204).build());
    String clientTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
    String url = "http://127.0.0.1:" + hooks.getPort() + "/hooks/bolo";

    Gateway.Reply accepted =
        gateway.send(
            gateway
                .nativeUpload(
                    Gateway.TOKEN_A,
                    TestAudio.wav(900, 515),
                    "webhook_url",
                    url + "?key=" + RECEIVER_KEY)
                .newBuilder()
                .url(gateway.url("/v1/jobs"))
                .header("traceparent", "00-" + clientTrace + "-00f067aa0ba902b7-01")
                .build());
    assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
    String jobId = JSON.readTree(accepted.body()).get("id").asText();

    Received submitted = awaitSpan(clientTrace, s -> s.name().equals("POST /v1/jobs"));
    Received run =
        awaitSpan(
            null,
            s ->
                s.name().equals("job run")
                    && s.attribute("bolo.job.outcome").isPresent()
                    && s.attribute("bolo.job.id").equals(Optional.of(jobId)));
    assertThat(run.traceId()).as("a trace of its own").isNotEqualTo(clientTrace);
    assertThat(run.parentId()).isEmpty();
    assertThat(run.linkedSpanIds()).containsExactly(submitted.spanId());
    assertThat(run.span().getKind()).isEqualTo(SpanKind.SPAN_KIND_CONSUMER);
    assertThat(run.attribute("bolo.job.outcome")).hasValue("succeeded");
    assertThat(run.attribute("bolo.job.attempt")).hasValue("1");

    String jobTrace = run.traceId();
    Received resolve = awaitSpan(jobTrace, s -> s.name().equals("resolve work key"));
    assertThat(resolve.parentId()).as("the note's work, under the run").isEqualTo(run.spanId());
    assertThat(awaitSpan(jobTrace, s -> s.name().equals("engine attempt")).parentId())
        .isEqualTo(resolve.spanId());
    assertThat(resolve.events()).containsOnlyOnce("charge");
    assertThat(provider.takeRequest().getHeaders().get("traceparent"))
        .as("the provider's call")
        .contains(jobTrace);

    // The first attempt is refused; once it is recorded, the clock passes its pause.
    RecordedRequest first = hooks.takeRequest();
    Received refused = awaitSpan(jobTrace, s -> s.attribute("bolo.webhook.attempt").isPresent());
    clock.advance(Duration.ofSeconds(10));
    Await.until(
        () -> {
          gateway.app().jobs().deliverDueWebhooks();
          return hooks.getRequestCount() == 2;
        },
        () -> "webhook attempts: " + hooks.getRequestCount());
    RecordedRequest second = hooks.takeRequest();
    Received delivered =
        awaitSpan(jobTrace, s -> s.attribute("bolo.webhook.attempt").equals(Optional.of("2")));

    for (Received attempt : List.of(refused, delivered)) {
      assertThat(attempt.parentId()).as("a child of the run").isEqualTo(run.spanId());
      assertThat(attempt.span().getKind()).isEqualTo(SpanKind.SPAN_KIND_CLIENT);
      assertThat(attempt.name()).isEqualTo("POST");
      assertThat(attempt.attribute("http.request.method")).hasValue("POST");
      assertThat(attempt.attribute("server.address")).hasValue("127.0.0.1");
      assertThat(attempt.attribute("server.port")).hasValue(Integer.toString(hooks.getPort()));
      assertThat(attempt.attribute("url.full"))
          .as("the receiver's origin, its path (where Slack's keeps a key) redacted")
          .hasValue("http://127.0.0.1:" + hooks.getPort() + "/REDACTED");
      assertThat(attempt.attribute("bolo.job.id")).hasValue(jobId);
    }
    assertThat(refused.attribute("bolo.webhook.attempt")).hasValue("1");
    assertThat(refused.attribute("http.response.status_code")).hasValue("500");
    assertThat(refused.attribute("error.type")).hasValue("500");
    assertThat(delivered.attribute("http.response.status_code")).hasValue("204");
    assertThat(delivered.attribute("error.type")).isEmpty();
    assertThat(first.getHeaders().get("traceparent"))
        .as("the receiver can go on with the trace")
        .startsWith("00-" + jobTrace + "-" + refused.spanId() + "-");
    assertThat(second.getHeaders().get("traceparent"))
        .startsWith("00-" + jobTrace + "-" + delivered.spanId() + "-");

    List<Received> all = new ArrayList<>(traces.trace(clientTrace));
    all.addAll(traces.trace(jobTrace));
    TraceReceiver.assertNothingPrivate(
        all,
        "alpha",
        "sk-test",
        RECEIVER_KEY,
        WEBHOOK_SECRET.substring("whsec_".length()),
        String.valueOf(first.getHeaders().get("webhook-signature")).substring("v1,".length()),
        String.valueOf(second.getHeaders().get("webhook-signature")).substring("v1,".length()));
    assertThat(traces.refused()).isEmpty();
  }

  /** The first span (of {@code traceId}, or of any trace when null) that {@code wanted} accepts. */
  private Received awaitSpan(
      @org.jspecify.annotations.Nullable String traceId,
      java.util.function.Predicate<Received> wanted)
      throws InterruptedException {
    Await.until(
        () -> spansOf(traceId).stream().anyMatch(wanted),
        () -> "spans: " + spansOf(traceId).stream().map(Received::name).toList());
    return spansOf(traceId).stream().filter(wanted).findFirst().orElseThrow();
  }

  private List<Received> spansOf(@org.jspecify.annotations.Nullable String traceId) {
    return traceId == null ? traces.spans() : traces.trace(traceId);
  }
}
