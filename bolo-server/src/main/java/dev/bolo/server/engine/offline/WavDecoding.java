package dev.bolo.server.engine.offline;

/**
 * What {@link WavDecoder} made of a file's header: the recogniser's input, or why there is none.
 */
sealed interface WavDecoding {

  /**
   * Audio ready for the recogniser.
   *
   * @param samples the note at 16 kHz, decoded as it is read
   * @param durationMs the note's length: the number of samples {@code samples} gives, in ms
   */
  record Decoded(NoteSamples samples, long durationMs) implements WavDecoding {}

  /** The file is not a PCM WAV this decoder can read; the message says what is wrong. */
  record Malformed(String message) implements WavDecoding {}
}
