package dev.bolo.server.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.testing.KeptSpans;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Where a note's charge lands in its trace. */
class NoteSpansTest {

  private final KeptSpans kept = new KeptSpans();
  private final SdkTracerProvider provider =
      SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(kept)).build();
  private final Tracer tracer = provider.get("test");

  @AfterEach
  void close() {
    provider.close();
  }

  @Test
  void aChargeIsAnEventOnTheResolutionWhoseWorkMadeTheTranscript() {
    Span resolving = tracer.spanBuilder("resolve work key").startSpan();
    try (Scope scope = NoteSpans.carry(Context.root(), tracer).with(resolving).makeCurrent()) {
      NoteSpans.charged(6_400);
    }
    resolving.end();

    assertThat(kept.spans()).extracting(SpanData::getName).containsExactly("resolve work key");
    List<EventData> events = kept.spans().get(0).getEvents();
    assertThat(events).extracting(EventData::getName).containsExactly("charge");
    assertThat(events.get(0).getAttributes().get(NoteSpans.CHARGED_MS)).isEqualTo(6_400L);
  }

  @Test
  void aChargeAfterTheResolutionEndedIsAShortSpanUnderIt() {
    // A cancelled job's wait ends its resolution while the work goes on for a copy that joined.
    Span resolving = tracer.spanBuilder("resolve work key").startSpan();
    Context work = NoteSpans.carry(Context.root(), tracer).with(resolving);
    resolving.end();
    try (Scope scope = work.makeCurrent()) {
      NoteSpans.charged(6_400);
    }

    assertThat(kept.spans())
        .extracting(SpanData::getName)
        .containsExactly("resolve work key", "charge");
    SpanData charge = kept.spans().get(1);
    assertThat(charge.getParentSpanId()).isEqualTo(resolving.getSpanContext().getSpanId());
    assertThat(charge.getAttributes().get(NoteSpans.CHARGED_MS)).isEqualTo(6_400L);
    assertThat(kept.spans().get(0).getEvents()).isEmpty();
  }

  @Test
  void aNoteWhoseTraceIsNotSampledMakesNoSpanInsideItsRequests() {
    // The request's span of a client's unsampled traceparent: valid, not sampled, not recording.
    Span request =
        Span.wrap(
            SpanContext.create(
                "0af7651916cd43dd8448eb211c80319c",
                "b7ad6b7169203331",
                TraceFlags.getDefault(),
                TraceState.getDefault()));
    Span sampled = tracer.spanBuilder("POST /v1/transcriptions").startSpan();

    try (Scope scope = NoteSpans.carry(Context.root().with(request), tracer).makeCurrent()) {
      Span reading = NoteSpans.start("read upload");
      assertThat(reading.getSpanContext().isValid()).isFalse();
      reading.end();
    }
    try (Scope scope = NoteSpans.carry(Context.root().with(sampled), tracer).makeCurrent()) {
      NoteSpans.start("read upload").end();
    }
    sampled.end();

    assertThat(kept.spans())
        .extracting(SpanData::getName)
        .containsExactly("read upload", "POST /v1/transcriptions");
    assertThat(kept.spans().get(0).getParentSpanId())
        .isEqualTo(sampled.getSpanContext().getSpanId());
  }

  @Test
  void anUntracedChargeMakesNothing() {
    NoteSpans.charged(6_400);
    assertThat(kept.spans()).isEmpty();
  }
}
