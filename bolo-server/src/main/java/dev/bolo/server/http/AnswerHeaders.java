package dev.bolo.server.http;

import dev.bolo.server.work.KeptTranscript;
import io.javalin.http.Context;

/**
 * The headers a transcript answer carries besides its body, whatever its shape: the JSON bodies
 * stay exactly as OpenAI's clients and installed phone apps parse them, so what the gateway adds
 * travels here. Stateless.
 */
final class AnswerHeaders {

  /**
   * The model that made the transcript, after an alias was resolved (PROTOCOL.md "Engines and
   * routes": every answer names what did the work): {@code whisper-1} sent to the offline engine
   * answers {@code moonshine-tiny-en}.
   */
  static final String MODEL = "X-Bolo-Model";

  /** The engine that made the transcript: with several engines, the target that served it. */
  static final String ENGINE = "X-Bolo-Engine";

  private AnswerHeaders() {}

  /** Names {@code model} on the answer; called before its body is written. */
  static void nameModel(Context ctx, String model) {
    ctx.res().setHeader(MODEL, model);
  }

  /**
   * Names the engine and model that made {@code transcript}: a route's target when one served it,
   * else {@code askedModel} (after its alias was resolved).
   */
  static void nameWork(Context ctx, KeptTranscript transcript, String askedModel) {
    ctx.res().setHeader(MODEL, modelOf(transcript, askedModel));
    ctx.res().setHeader(ENGINE, transcript.engine());
  }

  /** The model that made {@code transcript}. */
  static String modelOf(KeptTranscript transcript, String askedModel) {
    String model = transcript.model();
    return model != null ? model : askedModel;
  }
}
