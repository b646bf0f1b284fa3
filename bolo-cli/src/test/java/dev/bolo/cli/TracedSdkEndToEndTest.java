package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.client.BoloClient;
import dev.bolo.client.Outcome;
import dev.bolo.client.TranscriptionOptions;
import dev.bolo.client.VoiceNote;
import dev.bolo.server.testing.ScriptedGateway;
import dev.bolo.server.testing.TraceReceiver;
import dev.bolo.server.testing.TraceReceiver.Received;
import dev.bolo.testkit.Await;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The app's trace through the Java SDK and a gateway with traces on, to the provider: the app's
 * OpenTelemetry context handed to the SDK as its documentation says ({@code traceHeaders} with
 * {@link W3CTraceContextPropagator}), a first attempt the provider refuses and a resend, and the
 * same trace id at the provider stand-in on both calls and on the gateway's spans, each request's
 * span a child of the app's.
 */
class TracedSdkEndToEndTest {

  private static final TraceReceiver TRACES = receiver();

  @RegisterExtension
  final GatewayExtension gateway =
      new GatewayExtension(
          Map.of(
              "OTEL_EXPORTER_OTLP_ENDPOINT",
              TRACES.endpoint(),
              // Small batches, sent soon: the receiver sees the spans shortly after the answer.
              "OTEL_BSP_SCHEDULE_DELAY",
              "20"));

  @AfterAll
  static void stopReceiver() {
    TRACES.close();
  }

  @Test
  void theAppsTraceReachesTheProviderOnEveryAttemptThroughTheSdkAndTheGateway() throws Exception {
    String traceId = "5b8efff798038103d269b633813fc60c";
    String appSpan = "eee19b7ec3c1b174";
    SpanContext app =
        SpanContext.create(traceId, appSpan, TraceFlags.getSampled(), TraceState.getDefault());
    gateway.failFirst(1);
    BoloClient client =
        gateway
            .client()
            .traceHeaders(
                () -> {
                  Map<String, String> headers = new HashMap<>();
                  W3CTraceContextPropagator.getInstance()
                      .inject(Context.current(), headers, TracedSdkEndToEndTest::put);
                  return headers;
                })
            .build();

    Outcome outcome;
    try (Scope scope = Context.root().with(Span.wrap(app)).makeCurrent()) {
      outcome =
          client.transcribe(
              VoiceNote.ofBytes(EndToEndTest.wav(1000, 47), "note.wav"),
              TranscriptionOptions.defaults());
    }

    assertThat(outcome).isInstanceOf(Outcome.Transcribed.class);
    assertThat(outcome.attempts()).as("the provider's 503, then a resend").isEqualTo(2);
    assertThat(gateway.traceparents())
        .as("the provider stand-in's calls")
        .hasSize(2)
        .allSatisfy(traceparent -> assertThat(traceparent).startsWith("00-" + traceId + "-"));
    Await.until(
        () -> requestSpans(traceId).size() >= 3,
        () -> "spans of the app's trace: " + TRACES.trace(traceId));
    assertThat(requestSpans(traceId))
        .as("the upload, the resend's lookup, the resend")
        .extracting(Received::name)
        .contains("POST /v1/transcriptions", "GET /v1/transcriptions/{sha256}");
    assertThat(requestSpans(traceId)).allSatisfy(s -> assertThat(s.parentId()).isEqualTo(appSpan));
    TraceReceiver.assertNothingPrivate(
        TRACES.trace(traceId), ScriptedGateway.TOKEN, "phone", "note number");
  }

  /** The gateway's request spans in {@code traceId}: those whose parent is the app's. */
  private static List<Received> requestSpans(String traceId) {
    return TRACES.trace(traceId).stream()
        .filter(s -> s.span().getKind().name().equals("SPAN_KIND_SERVER"))
        .toList();
  }

  private static void put(@Nullable Map<String, String> carrier, String name, String value) {
    if (carrier != null) {
      carrier.put(name, value);
    }
  }

  private static TraceReceiver receiver() {
    try {
      return new TraceReceiver();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
