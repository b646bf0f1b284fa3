package dev.bolo.client;

import static dev.bolo.client.JsonAnswers.json;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;

/**
 * The app's trace on the SDK's requests ({@link BoloClient.Builder#traceHeaders}): asked on the
 * thread that hands a call over, as OpenTelemetry's {@code Context.current()} is, and sent with
 * every attempt of the call, whichever thread makes it.
 */
class TraceHeadersTest {

  private static final String TRACEPARENT =
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
  private static final String OK_BODY =
      "{\"text\":\"buy milk\",\"deduplicated\":false,\"audio_sha256\":\"ab12\","
          + "\"duration_ms\":1500,\"request_id\":\"r-1\",\"engine\":\"offline\"}";

  @StartStop private final MockWebServer server = new MockWebServer();

  private final FakeScheduler scheduler = new FakeScheduler(new FakeTime());
  private final VoiceNote note =
      VoiceNote.ofBytes(NoteLengthTest.wav(48000, 48000, false), "note.wav");

  /** The app's current trace: a thread's own, as a context in OpenTelemetry is. */
  private final ThreadLocal<Map<String, String>> current = ThreadLocal.withInitial(Map::of);

  private final AtomicInteger asked = new AtomicInteger();

  private BoloClient client(TraceHeaders trace) {
    return BoloClient.builder()
        .baseUrl(server.url("/bolo/"))
        .token("device-token")
        .policy(ResendPolicy.standard().withoutJitter())
        .timing(scheduler.timing())
        .resumableUploads(false)
        .traceHeaders(trace)
        .build();
  }

  private TraceHeaders currentTrace() {
    return () -> {
      asked.incrementAndGet();
      return current.get();
    };
  }

  @Test
  void everyAttemptOfANoteCarriesTheTraceOfTheThreadThatHandedItOver() throws Exception {
    server.enqueue(json(503, "{\"error\":\"busy\",\"code\":\"upstream_unavailable\"}"));
    server.enqueue(json(404, "{\"error\":\"not yet\",\"code\":\"not_found\"}"));
    server.enqueue(json(200, OK_BODY));
    current.set(Map.of("traceparent", TRACEPARENT, "tracestate", "app=1"));

    Outcome outcome = client(currentTrace()).transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isInstanceOf(Outcome.Transcribed.class);
    List<RecordedRequest> requests = List.of(take(), take(), take());
    assertThat(requests)
        .extracting(RecordedRequest::getMethod)
        .as("the upload, the resend's lookup, the resend")
        .containsExactly("POST", "GET", "POST");
    assertThat(requests)
        .allSatisfy(
            r -> {
              assertThat(r.getHeaders().get("traceparent")).isEqualTo(TRACEPARENT);
              assertThat(r.getHeaders().get("tracestate")).isEqualTo("app=1");
            });
    assertThat(asked).as("asked once, on the caller's thread").hasValue(1);
  }

  @Test
  void aJobCallCarriesTheTraceAndOnlyTraceContextHeadersAreTakenFromTheApp() throws Exception {
    server.enqueue(json(200, "{\"object\":\"list\",\"data\":[],\"has_more\":false}"));
    current.set(
        Map.of(
            "TraceParent", TRACEPARENT,
            "Authorization", "Bearer someone-else",
            "baggage", "user=42",
            "tracestate", "bad\nvalue"));

    assertThat(client(currentTrace()).jobs(null, null)).isInstanceOf(JobOutcome.Answered.class);

    RecordedRequest request = take();
    assertThat(request.getHeaders().get("traceparent")).isEqualTo(TRACEPARENT);
    assertThat(request.getHeaders().get("Authorization")).isEqualTo("Bearer device-token");
    assertThat(request.getHeaders().get("baggage")).isNull();
    assertThat(request.getHeaders().get("tracestate")).isNull();
  }

  @Test
  void withoutATraceOrWhenTheAppsSupplierFailsNothingIsSentAndTheNoteGoesOn() throws Exception {
    server.enqueue(json(200, OK_BODY));
    server.enqueue(json(200, OK_BODY));

    assertThat(client(currentTrace()).transcribe(note, TranscriptionOptions.defaults()))
        .isInstanceOf(Outcome.Transcribed.class);
    TraceHeaders broken =
        () -> {
          throw new IllegalStateException("no tracer");
        };
    assertThat(client(broken).transcribe(note, TranscriptionOptions.defaults()))
        .isInstanceOf(Outcome.Transcribed.class);

    assertThat(take().getHeaders().get("traceparent")).isNull();
    assertThat(take().getHeaders().get("traceparent")).isNull();
  }

  @Test
  void aTraceStateTooLargeForTheGatewaysHeadersIsNotSentAndTheNoteGoesOn() throws Exception {
    // A tracestate OpenTelemetry itself accepts and sends (32 members, values of 256 characters):
    // over the gateway's 8 KiB of request headers, it would have every note refused with a 431.
    StringBuilder state = new StringBuilder();
    for (int i = 0; i < 32; i++) {
      state.append(i == 0 ? "" : ",").append("v").append(i).append('=').append("x".repeat(256));
    }
    server.enqueue(json(200, OK_BODY));
    current.set(Map.of("traceparent", TRACEPARENT, "tracestate", state.toString()));

    client(currentTrace()).transcribe(note, TranscriptionOptions.defaults());

    RecordedRequest request = take();
    assertThat(request.getHeaders().get("traceparent")).isEqualTo(TRACEPARENT);
    assertThat(request.getHeaders().get("tracestate"))
        .as("W3C: a tracestate may be cut to 512 characters; whole, it costs the note")
        .satisfiesAnyOf(
            v -> assertThat(v).isNull(), v -> assertThat(v).hasSizeLessThanOrEqualTo(512));
  }

  private RecordedRequest take() throws InterruptedException {
    return java.util.Objects.requireNonNull(
        server.takeRequest(10, java.util.concurrent.TimeUnit.SECONDS));
  }
}
