package dev.bolo.server.testing;

import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A span exporter that keeps every span handed to it, in memory, in the order they ended: for a
 * test or a benchmark that makes spans with the SDK itself and reads what it would have sent.
 * Thread safe.
 */
public final class KeptSpans implements SpanExporter {

  private final List<SpanData> kept = new CopyOnWriteArrayList<>();

  /** The spans kept so far, in the order they were exported. */
  public List<SpanData> spans() {
    return List.copyOf(kept);
  }

  @Override
  public CompletableResultCode export(Collection<SpanData> spans) {
    kept.addAll(spans);
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
}
