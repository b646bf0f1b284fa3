package dev.bolo.server.testing;

import dev.bolo.server.engine.EngineRequest;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.SpeechEngine;
import java.util.function.Function;

/**
 * The gateway's real engine under its own name and model, answering every note as {@code answer}
 * says: for tests that wrap the engine with {@code App.builder(config).engineView} to make it fail,
 * refuse or answer at once.
 *
 * @param real the engine the gateway built from its configuration
 * @param answer what each note gets; it may call {@code real.transcribe}
 */
public record AnsweringEngine(SpeechEngine real, Function<EngineRequest, EngineResult> answer)
    implements SpeechEngine {

  @Override
  public String name() {
    return real.name();
  }

  @Override
  public String defaultModel() {
    return real.defaultModel();
  }

  @Override
  public EngineResult transcribe(EngineRequest request) {
    return answer.apply(request);
  }
}
