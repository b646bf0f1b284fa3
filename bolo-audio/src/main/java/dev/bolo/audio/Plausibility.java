package dev.bolo.audio;

/**
 * Whether a length read from a compressed note's header can be true of its size. Headers are the
 * sender's to write; the size is what arrived. A note many times denser than its codecs can be, or
 * emptier than any codec, contradicts its header.
 */
final class Plausibility {

  /**
   * Room for tags, cover art and container overhead that carry no audio: a voice note rarely has
   * more than a few kilobytes, an MP3 with cover art a few hundred.
   */
  static final long SLACK_BYTES = 512 * 1024;

  /** No codec Bolo accepts stores a second in less than a byte, even silence. */
  static final long MIN_BYTES_PER_SECOND = 1;

  private Plausibility() {}

  /**
   * The most bytes one second of audio takes in this container: the highest rate its codecs reach,
   * rounded up.
   */
  static long maxBytesPerSecond(AudioContainer container) {
    return switch (container) {
      // Measured from the data chunk's size, so always consistent with it.
      case WAV -> Long.MAX_VALUE;
      // 448 kbit/s is the highest MPEG audio bit rate (MPEG-1 Layer I).
      case MP3 -> 56_000;
      // Opus peaks at 510 kbit/s for a stereo stream, Vorbis near that at 48 kHz: 1 Mbit/s.
      case OGG -> 128_000;
      // An ADTS frame holds at most 6144 bits per channel per 1024 samples: 8 channels at 96 kHz.
      case AAC -> 576_000;
      // MP4, WebM and FLAC may hold lossless or PCM audio: 24-bit stereo at 192 kHz.
      case MP4, WEBM, FLAC -> 1_152_000;
    };
  }

  static Measurement check(AudioContainer container, long size, Measurement measurement) {
    if (!(measurement instanceof Measurement.Measured measured)
        || container == AudioContainer.WAV) {
      return measurement;
    }
    long millis = measured.millis();
    long audioBytes = Math.max(0, size - SLACK_BYTES);
    // Compare bytes × 1000 with rate × millis, in doubles: both sides can pass 2^63.
    double most = (double) maxBytesPerSecond(container) * millis / 1000;
    if (audioBytes > most) {
      return new Measurement.Contradicts(
          "the "
              + container.extension()
              + " headers say "
              + millis
              + " ms, too short for "
              + size
              + " bytes of audio");
    }
    double least = (double) MIN_BYTES_PER_SECOND * millis / 1000;
    if (size < least) {
      return new Measurement.Contradicts(
          "the "
              + container.extension()
              + " headers say "
              + millis
              + " ms, too long for "
              + size
              + " bytes of audio");
    }
    return measurement;
  }
}
