package dev.bolo.audio;

/** A FLAC note's length from STREAMINFO: total samples over the sample rate (RFC 9639 8.2). */
final class FlacDuration {

  private static final int STREAMINFO = 0;

  private static final int STREAMINFO_BYTES = 34;

  private FlacDuration() {}

  static Measurement measure(Cursor in) {
    in.seek(0);
    if (!in.consume("fLaC")) {
      throw new ParseStop.Unreadable("no fLaC marker");
    }
    int type = in.u8() & 0x7f;
    int length = in.u24be();
    // RFC 9639: STREAMINFO is the first metadata block and is 34 bytes long.
    if (type != STREAMINFO || length != STREAMINFO_BYTES) {
      throw new ParseStop.Contradiction(
          "the first FLAC metadata block is of type "
              + type
              + " and "
              + length
              + " bytes, not a 34-byte STREAMINFO");
    }
    in.skip(10);
    // 20 bits sample rate, 3 bits channels - 1, 5 bits bits per sample - 1, 36 bits samples.
    long packed = in.u64be();
    long sampleRate = packed >>> 44;
    long totalSamples = packed & 0xF_FFFF_FFFFL;
    if (sampleRate == 0) {
      throw new ParseStop.Contradiction("the FLAC STREAMINFO says a sample rate of 0 Hz");
    }
    if (totalSamples == 0) {
      // 0 means "unknown": what an encoder writing to a pipe leaves, unable to seek back.
      return new Measurement.Unmeasurable("a FLAC stream whose STREAMINFO has no sample count");
    }
    return new Measurement.Measured(Millis.of(totalSamples, sampleRate, "the FLAC sample rate"));
  }
}
