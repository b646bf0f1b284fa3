package dev.bolo.server.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Where a note's charge lands in its trace. */
class NoteSpansTest {

  private final List<SpanData> ended = new CopyOnWriteArrayList<>();
  private final SdkTracerProvider provider =
      SdkTracerProvider.builder()
          .addSpanProcessor(
              SimpleSpanProcessor.create(
                  new SpanExporter() {
                    @Override
                    public CompletableResultCode export(Collection<SpanData> spans) {
                      ended.addAll(spans);
                      return CompletableResultCode.ofSuccess();
                    }

                    @Override
                    public CompletableResultCode flush() {
                      return CompletableResultCode.ofSuccess();
                    }

                    @Override
                    public CompletableResultCode shutdown() {
                      return CompletableResultCode.ofSuccess();
                    }
                  }))
          .build();
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

    assertThat(ended).extracting(SpanData::getName).containsExactly("resolve work key");
    List<EventData> events = ended.get(0).getEvents();
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

    assertThat(ended).extracting(SpanData::getName).containsExactly("resolve work key", "charge");
    SpanData charge = ended.get(1);
    assertThat(charge.getParentSpanId()).isEqualTo(resolving.getSpanContext().getSpanId());
    assertThat(charge.getAttributes().get(NoteSpans.CHARGED_MS)).isEqualTo(6_400L);
    assertThat(ended.get(0).getEvents()).isEmpty();
  }

  @Test
  void anUntracedChargeMakesNothing() {
    NoteSpans.charged(6_400);
    assertThat(ended).isEmpty();
  }
}
