package dev.bolo.cli;

import java.util.Locale;

/** How the ledger commands print amounts of audio. */
final class Format {

  private Format() {}

  /** Milliseconds as seconds with one decimal, e.g. {@code 12.5}. */
  static String seconds(long millis) {
    return String.format(Locale.ROOT, "%.1f", millis / 1000.0);
  }

  /** A quota in milliseconds, 0 meaning unlimited. */
  static String quota(long millis) {
    return millis == 0 ? "unlimited" : seconds(millis) + " s";
  }
}
