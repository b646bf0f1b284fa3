package dev.bolo.audio;

/**
 * Ends a parse from deep inside a header; {@link AudioDurations#measure} turns it into a {@link
 * Measurement}. Never escapes this package. No stack trace: hostile notes are expected, and filling
 * one in for each would make them costly.
 */
abstract sealed class ParseStop extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String reason;

  private ParseStop(String reason) {
    super(reason, null, false, false);
    this.reason = reason;
  }

  String reason() {
    return reason;
  }

  abstract Measurement measurement();

  /** The bytes end early or do not form the container's structure. */
  static final class Unreadable extends ParseStop {
    private static final long serialVersionUID = 1L;

    Unreadable(String message) {
      super(message);
    }

    @Override
    Measurement measurement() {
      return new Measurement.Unmeasurable(reason());
    }
  }

  /** A header contradicts itself or the bytes. */
  static final class Contradiction extends ParseStop {
    private static final long serialVersionUID = 1L;

    Contradiction(String message) {
      super(message);
    }

    @Override
    Measurement measurement() {
      return new Measurement.Contradicts(reason());
    }
  }
}
