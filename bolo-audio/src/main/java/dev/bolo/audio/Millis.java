package dev.bolo.audio;

/** Turns counts of samples or ticks into milliseconds without overflowing. */
final class Millis {

  private Millis() {}

  /**
   * {@code count / perSecond} seconds in whole milliseconds, rounded down.
   *
   * @throws ParseStop.Contradiction when the rate is not positive or the length is absurd
   */
  static long of(long count, long perSecond, String what) {
    if (perSecond <= 0) {
      throw new ParseStop.Contradiction(what + " is " + perSecond + " per second");
    }
    if (count < 0) {
      throw new ParseStop.Contradiction(what + " counts " + count + ", a negative length");
    }
    long seconds = count / perSecond;
    if (seconds > Long.MAX_VALUE / 1000 - 1) {
      throw new ParseStop.Contradiction(what + " claims " + seconds + " s, an absurd length");
    }
    long remainder = count % perSecond;
    // The remainder is below perSecond; only a rate beyond any header's 32 bits could overflow.
    long fraction =
        perSecond <= Long.MAX_VALUE / 1000
            ? remainder * 1000 / perSecond
            : remainder / (perSecond / 1000);
    return seconds * 1000 + fraction;
  }
}
