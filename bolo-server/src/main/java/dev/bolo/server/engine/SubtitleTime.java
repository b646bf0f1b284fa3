package dev.bolo.server.engine;

import java.util.Locale;

/** A subtitle cue's time as SubRip and WebVTT write it. Stateless. */
public final class SubtitleTime {

  private SubtitleTime() {}

  /** {@code HH:MM:SS,mmm} (SubRip, {@code ','}) or {@code HH:MM:SS.mmm} (WebVTT, {@code '.'}). */
  public static String of(long millis, char millisSeparator) {
    return String.format(
        Locale.ROOT,
        "%02d:%02d:%02d%c%03d",
        millis / 3_600_000,
        millis / 60_000 % 60,
        millis / 1000 % 60,
        millisSeparator,
        millis % 1000);
  }
}
