package dev.bolo.server.engine.openai;

import dev.bolo.server.engine.EngineLimits;
import dev.bolo.server.engine.ResponseFormat;
import java.util.Locale;

/**
 * What OpenAI's {@code /audio/transcriptions} takes in one request, from its documentation: files
 * up to 25 MB, counted here for the whole request so that a note of exactly 25 MB is not refused
 * for its form; and for the {@code gpt-4o} transcription models, at most 1500 seconds of audio
 * (whisper models have no limit of length beyond the bytes). Compatible servers that take more are
 * given their own limits with {@code BOLO_OPENAI_MAX_REQUEST_BYTES} and {@code
 * BOLO_OPENAI_MAX_SECONDS}. Stateless.
 */
final class OpenAiLimits {

  /** 25 MB as OpenAI counts it: 25 × 1024 × 1024 bytes. */
  static final long MAX_REQUEST_BYTES = 26_214_400;

  /** The longest audio gpt-4o-transcribe and gpt-4o-mini-transcribe take. */
  static final long GPT_4O_MAX_SECONDS = 1500;

  private OpenAiLimits() {}

  /**
   * Whisper models, OpenAI's own and those of compatible servers (Groq, Azure, whisper.cpp's and
   * faster-whisper's servers), answer {@code verbose_json} with timed segments; OpenAI documents
   * {@code json} as the only format of its {@code gpt-4o} transcription models, and a model of
   * another name is not assumed to time anything.
   */
  static ResponseFormat richestFormat(String model) {
    return model.toLowerCase(Locale.ROOT).contains("whisper")
        ? ResponseFormat.VERBOSE_JSON
        : ResponseFormat.JSON;
  }

  static EngineLimits forModel(String model) {
    String name = model.toLowerCase(Locale.ROOT);
    boolean gpt4o = name.startsWith("gpt-4o") && name.contains("transcribe");
    return new EngineLimits(MAX_REQUEST_BYTES, gpt4o ? GPT_4O_MAX_SECONDS : Long.MAX_VALUE);
  }
}
