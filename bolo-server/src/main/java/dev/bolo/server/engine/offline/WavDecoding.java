package dev.bolo.server.engine.offline;

/** What {@link WavDecoder} made of a file: the recogniser's input, or why there is none. */
sealed interface WavDecoding {

  /** Audio ready for the recogniser: 16 kHz mono signed 16-bit samples. */
  final class Decoded implements WavDecoding {
    private final short[] samples;

    Decoded(short[] samples) {
      this.samples = samples;
    }

    /** The samples; callers must not modify them. */
    short[] samples() {
      return samples;
    }

    /** Length in milliseconds. */
    long durationMs() {
      return samples.length * 1000L / WavDecoder.TARGET_RATE;
    }
  }

  /** The file is not a PCM WAV this decoder can read; the message says what is wrong. */
  record Malformed(String message) implements WavDecoding {}
}
