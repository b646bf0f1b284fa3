package dev.bolo.server.engine;

import dev.bolo.server.health.Readiness;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Objects;

/**
 * An engine that wraps another and answers every question as it does: a decorator overrides what it
 * adds (a span per call, pieces of long notes) and inherits the rest, so a question the seam gains
 * later is forwarded by every decorator at once. Thread safe as the engine it wraps.
 */
public abstract class ForwardingEngine implements SpeechEngine {

  /** The engine wrapped. */
  protected final SpeechEngine engine;

  protected ForwardingEngine(SpeechEngine engine) {
    this.engine = Objects.requireNonNull(engine, "engine");
  }

  @Override
  public EngineResult transcribe(EngineRequest request) {
    return engine.transcribe(request);
  }

  @Override
  public String name() {
    return engine.name();
  }

  @Override
  public String defaultModel() {
    return engine.defaultModel();
  }

  @Override
  public boolean canTranslate() {
    return engine.canTranslate();
  }

  @Override
  public String source(String model) {
    return engine.source(model);
  }

  @Override
  public boolean timesWords(String model) {
    return engine.timesWords(model);
  }

  @Override
  public List<String> languages() {
    return engine.languages();
  }

  @Override
  public EngineLimits limits(String model) {
    return engine.limits(model);
  }

  @Override
  public LongestNote longestNote(String model) {
    return engine.longestNote(model);
  }

  @Override
  public ResponseFormat richestFormat(String model) {
    return engine.richestFormat(model);
  }

  @Override
  public Readiness readiness() {
    return engine.readiness();
  }

  @Override
  public void bindMetrics(MeterRegistry registry) {
    engine.bindMetrics(registry);
  }

  @Override
  public void close() {
    engine.close();
  }
}
