package dev.bolo.server.engine;

/**
 * What to make of the speech: a transcript in the language spoken, or an English translation
 * (OpenAI's {@code /audio/translations}). Part of every work key, since the text differs.
 */
public enum Task {
  /** Text in the language spoken. */
  TRANSCRIBE,
  /** Text in English, whatever the language spoken. */
  TRANSLATE
}
