package dev.bolo.server.http;

import static dev.bolo.server.http.TracedGateway.assertNothingPrivate;
import static dev.bolo.server.http.TracedGateway.callOf;
import static dev.bolo.server.http.TracedGateway.only;
import static dev.bolo.server.http.TracedGateway.randomHex;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.LogCapture;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.server.testing.TraceReceiver;
import dev.bolo.server.testing.TraceReceiver.Received;
import dev.bolo.testkit.Await;
import io.opentelemetry.proto.trace.v1.Span.SpanKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import okhttp3.Request;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One note's story as a trace (docs/operations/tracing.md): a gateway with traces on, two providers
 * behind one route, and an OTLP/HTTP receiver that decodes what the SDK sends ({@link
 * TracedGateway}). One gateway for the class; each test follows its own trace, begun by the
 * client's {@code traceparent}.
 */
class TracedNoteTest {

  private static TracedGateway traced;
  private static FakeProvider primary;
  private static TraceReceiver receiver;
  private static Gateway gateway;

  @BeforeAll
  static void start() throws Exception {
    traced = TracedGateway.start();
    primary = traced.primary;
    receiver = traced.receiver;
    gateway = traced.gateway;
  }

  @AfterAll
  static void stop() throws Exception {
    traced.close();
  }

  @Test
  void oneNoteIsOneTraceWhoseSpansNestAsItsStoryGoesAndReachTheProvider() throws Exception {
    String traceId = randomHex(16);
    String clientSpan = randomHex(8);

    try (LogCapture logs = LogCapture.start()) {
      Gateway.Reply reply = traced.send(TestAudio.wav(700, 511), traceId, clientSpan);
      assertThat(reply.status()).as(reply.body()).isEqualTo(200);
      TracedGateway.Spans spans =
          traced.awaitSpans(traceId, "POST /v1/transcriptions", "resolve work key");

      Received server = spans.get("POST /v1/transcriptions");
      assertThat(server.parentId()).as("the client's span").isEqualTo(clientSpan);
      assertThat(server.span().getKind()).isEqualTo(SpanKind.SPAN_KIND_SERVER);
      assertThat(server.attribute("http.route")).hasValue("/v1/transcriptions");
      assertThat(server.attribute("url.path")).hasValue("/v1/transcriptions");
      assertThat(server.attribute("http.request.method")).hasValue("POST");
      assertThat(server.attribute("http.response.status_code")).hasValue("200");
      assertThat(server.attribute("bolo.request_id")).hasValue(reply.requestId());
      assertThat(server.resource()).containsEntry("service.name", "bolo");

      Received read = spans.get("read upload");
      assertThat(read.parentId()).isEqualTo(server.spanId());
      assertThat(read.attribute("bolo.audio.bytes")).isPresent();

      Received resolve = spans.get("resolve work key");
      assertThat(resolve.parentId()).isEqualTo(server.spanId());
      assertThat(resolve.attribute("bolo.resolution")).hasValue("owner");
      assertThat(resolve.attribute("bolo.work_key"))
          .hasValueSatisfying(k -> assertThat(k).hasSize(12));

      Received attempt = spans.get("engine attempt");
      assertThat(attempt.parentId()).isEqualTo(resolve.spanId());
      assertThat(attempt.attribute("bolo.engine.target")).hasValue("primary");
      assertThat(attempt.attribute("bolo.engine.model")).hasValue("whisper-1");
      assertThat(attempt.attribute("bolo.engine.outcome")).hasValue("transcribed");

      Received call = spans.get("POST");
      assertThat(call.parentId()).isEqualTo(attempt.spanId());
      assertThat(call.span().getKind()).isEqualTo(SpanKind.SPAN_KIND_CLIENT);
      assertThat(call.attribute("http.response.status_code")).hasValue("200");
      assertThat(call.attribute("server.address"))
          .hasValue(java.net.URI.create(primary.baseUrl()).getHost());

      // The charge is a moment of the work that made the transcript: an event on its resolution.
      assertThat(resolve.events()).containsOnlyOnce("charge");
      assertThat(resolve.eventAttribute("charge", "bolo.charged_ms")).hasValue("700");
      assertThat(spans.byName()).doesNotContainKey("charge");

      RecordedRequest atProvider = callOf(primary, traceId);
      assertThat(atProvider.getHeaders().get("traceparent"))
          .as("the provider's call carries the client's trace")
          .isEqualTo("00-" + traceId + "-" + call.spanId() + "-01");

      // Every line the request wrote within its trace names it: the access line too.
      assertThat(logs.text())
          .contains("trace_id=" + traceId)
          .containsPattern("trace_id=" + traceId + ".*POST /v1/transcriptions -> 200");
      assertNothingPrivate(receiver.trace(traceId));
    }
  }

  @Test
  void aFailoverIsOneAttemptPerTargetEachWithItsOutcomeAndItsOwnLogLines() throws Exception {
    String traceId = randomHex(16);
    primary.enqueue(FakeProvider.overloaded());

    List<Received> trace;
    String logged;
    try (LogCapture logs = LogCapture.start()) {
      Gateway.Reply reply = traced.send(TestAudio.wav(800, 512), traceId, randomHex(8));
      assertThat(reply.status()).as(reply.body()).isEqualTo(200);
      traced.awaitSpans(traceId, "POST /v1/transcriptions", "resolve work key");
      trace = receiver.trace(traceId);
      logged = logs.text();
    }

    List<Received> attempts =
        trace.stream().filter(s -> s.name().equals("engine attempt")).toList();
    assertThat(attempts)
        .extracting(
            a -> a.attribute("bolo.engine.target").orElseThrow(),
            a -> a.attribute("bolo.engine.outcome").orElseThrow(),
            a -> a.attribute("bolo.engine.breaker").orElseThrow())
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("primary", "unavailable", "closed"),
            org.assertj.core.groups.Tuple.tuple("backup", "transcribed", "closed"));
    Received resolve = only(trace, "resolve work key");
    assertThat(attempts).allSatisfy(a -> assertThat(a.parentId()).isEqualTo(resolve.spanId()));
    assertThat(resolve.events()).contains("failover");
    assertThat(resolve.allAttributes())
        .contains("bolo.engine.target=primary/whisper-1", "bolo.engine.outcome=unavailable");
    // The line the provider's 503 made inside the first attempt names that attempt's span.
    String failedAttempt =
        attempts.stream()
            .filter(a -> a.attribute("bolo.engine.target").orElseThrow().equals("primary"))
            .findFirst()
            .orElseThrow()
            .spanId();
    assertThat(logged.lines().filter(line -> line.contains("provider answered 503")))
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .contains("trace_id=" + traceId)
        .contains("span_id=" + failedAttempt);
    assertNothingPrivate(trace);
  }

  @Test
  void anAttemptNamesItsBreakerAsItStartsHalfOpenForTheProbeAfterARetryAfter() throws Exception {
    // The probe-1 route's targets have breakers of their own, which no other test here uses.
    primary.enqueue(
        new MockResponse.Builder()
            .code(429)
            .setHeader("Retry-After", "60")
            .setHeader("Content-Type", "application/json")
            .body("{\"error\":{\"message\":\"slow down\"}}")
            .build());
    Gateway.Reply told =
        traced.send(TestAudio.wav(700, 516), randomHex(16), randomHex(8), "model", "probe-1");
    assertThat(told.status()).as(told.body()).isEqualTo(200);
    // The minute the primary asked for passes on the gateway's ticker.
    gateway.advance(Duration.ofSeconds(61));
    String traceId = randomHex(16);

    Gateway.Reply probe =
        traced.send(TestAudio.wav(700, 517), traceId, randomHex(8), "model", "probe-1");

    assertThat(probe.status()).as(probe.body()).isEqualTo(200);
    traced.awaitSpans(traceId, "POST /v1/transcriptions", "resolve work key");
    Received attempt = only(receiver.trace(traceId), "engine attempt");
    assertThat(attempt.attribute("bolo.engine.target")).hasValue("primary");
    assertThat(attempt.attribute("bolo.engine.model")).hasValue("probe-1");
    assertThat(attempt.attribute("bolo.engine.breaker")).hasValue("half_open");
    assertThat(attempt.attribute("bolo.engine.outcome")).hasValue("transcribed");
  }

  @Test
  void aLongNoteSentInPiecesIsOneAttemptPerPieceEachNamingItsPlace() throws Exception {
    String traceId = randomHex(16);

    Gateway.Reply reply = traced.send(TestAudio.lecture(), traceId, randomHex(8));

    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    traced.awaitSpans(traceId, "POST /v1/transcriptions", "resolve work key");
    List<Received> trace = receiver.trace(traceId);
    Received resolve = only(trace, "resolve work key");
    long pieces = Long.parseLong(resolve.attribute("bolo.piece.count").orElseThrow());
    // 68 s in pieces of at most 20 s (BOLO_OPENAI_MAX_SECONDS).
    assertThat(pieces).isGreaterThanOrEqualTo(4);
    List<Received> attempts =
        trace.stream().filter(s -> s.name().equals("engine attempt")).toList();
    assertThat(attempts)
        .extracting(a -> Long.parseLong(a.attribute("bolo.piece.index").orElseThrow()))
        .containsExactlyInAnyOrderElementsOf(
            java.util.stream.LongStream.range(0, pieces).boxed().toList());
    assertThat(attempts)
        .allSatisfy(
            a -> {
              assertThat(a.parentId()).isEqualTo(resolve.spanId());
              assertThat(a.attribute("bolo.engine.target")).hasValue("primary");
              assertThat(a.attribute("bolo.engine.breaker")).hasValue("closed");
              assertThat(a.attribute("bolo.engine.outcome")).hasValue("transcribed");
            });
    assertNothingPrivate(trace);
  }

  @Test
  void fourCopiesOfOneNoteAreOneEngineAttemptAndThreeLinksToTheOwner() throws Exception {
    byte[] note = TestAudio.wav(600, 513);
    List<String> traces = List.of(randomHex(16), randomHex(16), randomHex(16), randomHex(16));
    primary.hold();
    List<Future<Gateway.Reply>> replies = new ArrayList<>();
    try (ExecutorService phones = Executors.newVirtualThreadPerTaskExecutor()) {
      for (String traceId : traces) {
        replies.add(phones.submit(() -> traced.send(note, traceId, randomHex(8))));
      }
      Await.until(
          () -> traced.metric("bolo_dedup_waiting_copies") == 4,
          () -> "copies waiting: " + traced.metric("bolo_dedup_waiting_copies"));
      primary.release();
      for (Future<Gateway.Reply> reply : replies) {
        assertThat(reply.get().status()).isEqualTo(200);
      }
    }

    List<Received> resolutions = new ArrayList<>();
    for (String traceId : traces) {
      resolutions.add(
          traced.awaitSpans(traceId, "POST /v1/transcriptions").get("resolve work key"));
    }
    Received owner = TraceReceiver.assertOneOwnerLinkedByTheRest(resolutions).owner();
    List<Received> attempts = new ArrayList<>();
    for (String traceId : traces) {
      receiver.trace(traceId).stream()
          .filter(s -> s.name().equals("engine attempt"))
          .forEach(attempts::add);
    }
    assertThat(attempts).hasSize(1);
    assertThat(attempts.get(0).traceId()).isEqualTo(owner.traceId());
    for (String traceId : traces) {
      assertNothingPrivate(receiver.trace(traceId));
    }
    assertThat(receiver.refused()).isEmpty();
  }

  @Test
  void theLatencyHistogramNamesATracedRequestAsItsExemplarInOpenMetrics() throws Exception {
    String traceId = randomHex(16);
    Gateway.Reply reply = traced.send(TestAudio.wav(500, 514), traceId, randomHex(8));
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);

    Gateway.Reply metrics =
        gateway.send(
            new Request.Builder()
                .url(gateway.url("/metrics"))
                .header("Accept", "application/openmetrics-text; version=1.0.0")
                .build());

    assertThat(metrics.contentType()).startsWith("application/openmetrics-text");
    List<String> traced =
        metrics
            .body()
            .lines()
            .filter(line -> line.startsWith("bolo_http_request_duration_seconds_bucket"))
            .filter(line -> line.contains("trace_id=\""))
            .toList();
    assertThat(traced).as("buckets with an exemplar").isNotEmpty();
    // Only the latency histograms sample exemplars: a counter or the note-length histogram
    // re-arming a sampler every 90 ms costs CPU for exemplars no one asked for.
    assertThat(metrics.body().lines())
        .filteredOn(
            line ->
                line.startsWith("bolo_http_requests_total")
                    || line.startsWith("bolo_transcriptions_total")
                    || line.startsWith("bolo_note_duration"))
        .isNotEmpty()
        .noneSatisfy(line -> assertThat(line).contains("trace_id"));
    List<String> known = receiver.spans().stream().map(Received::traceId).toList();
    assertThat(traced)
        .allSatisfy(
            line ->
                assertThat(known).contains(line.replaceAll(".*trace_id=\"([0-9a-f]+)\".*", "$1")));
  }

  @Test
  void aClientsUnsampledTraceGoesOnToTheProviderAsItsRequestsSpanAndMakesNoSpanInside()
      throws Exception {
    String traceId = randomHex(16);
    String logged;
    try (LogCapture logs = LogCapture.start()) {
      Request request =
          gateway
              .nativeUpload(Gateway.TOKEN_A, TestAudio.wav(660, 519))
              .newBuilder()
              .header("traceparent", "00-" + traceId + "-" + randomHex(8) + "-00")
              .build();
      Gateway.Reply reply = gateway.send(request);
      assertThat(reply.status()).as(reply.body()).isEqualTo(200);
      // The access line is written once the answer has gone out: the client may read it first.
      Await.until(
          () -> accessLine(logs.text(), traceId) != null,
          () -> "the access line of " + traceId + " in:\n" + logs.text());
      logged = logs.text();
    }

    // The access line names the request's span: the provider's call carries that same span on,
    // flagged unsampled, with no attempt's or call's span made between them.
    String access = java.util.Objects.requireNonNull(accessLine(logged, traceId));
    String requestSpan = access.replaceAll(".*span_id=([0-9a-f]{16}).*", "$1");
    RecordedRequest atProvider = callOf(primary, traceId);
    assertThat(atProvider.getHeaders().get("traceparent"))
        .isEqualTo("00-" + traceId + "-" + requestSpan + "-00");

    // A sampled note after it: once its spans have arrived, none of the unsampled one's did.
    String after = randomHex(16);
    assertThat(traced.send(TestAudio.wav(670, 520), after, randomHex(8)).status()).isEqualTo(200);
    traced.awaitSpans(after, "POST /v1/transcriptions", "resolve work key");
    assertThat(receiver.trace(traceId)).isEmpty();
  }

  private static @org.jspecify.annotations.Nullable String accessLine(
      String logged, String traceId) {
    return logged
        .lines()
        .filter(line -> line.contains("trace_id=" + traceId) && line.contains("-> 200"))
        .findFirst()
        .orElse(null);
  }

  @Test
  void aClientsBaggageIsNotSentOnToTheProvider() throws Exception {
    String traceId = randomHex(16);
    Request request =
        gateway
            .nativeUpload(Gateway.TOKEN_A, TestAudio.wav(650, 517))
            .newBuilder()
            .header("traceparent", "00-" + traceId + "-" + randomHex(8) + "-01")
            .header("baggage", "user.email=asha%40example.com")
            .build();
    Gateway.Reply reply = gateway.send(request);
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);

    RecordedRequest atProvider = callOf(primary, traceId);
    // tracing.md: only traceparent and tracestate cross a hop; what a client put in its baggage
    // (an app's user, its e-mail) is no business of a third-party provider's.
    assertThat(atProvider.getHeaders().get("baggage")).isNull();
  }

  @Test
  void anAdminRequestsSpanNamesItsRouteNotTheDeviceInItsPath() throws Exception {
    String traceId = randomHex(16);
    // A quota for a device that does not exist: nothing of the class's gateway changes.
    Gateway.Reply reply =
        gateway.send(
            new Request.Builder()
                .url(gateway.url("/admin/api/devices/kitchen-phone-of-asha/quota"))
                .header("Authorization", "Bearer " + TracedGateway.ADMIN_TOKEN)
                .header("traceparent", "00-" + traceId + "-" + randomHex(8) + "-01")
                .put(
                    okhttp3.RequestBody.create(
                        "{\"monthly_minutes\":5}", okhttp3.MediaType.get("application/json")))
                .build());
    assertThat(reply.status()).as(reply.body()).isBetween(200, 499);

    Await.until(() -> !receiver.trace(traceId).isEmpty(), () -> "spans of " + traceId);
    // tracing.md, What no span carries: no device name or other device identity.
    TraceReceiver.assertNothingPrivate(receiver.trace(traceId), "kitchen-phone-of-asha");
  }
}
