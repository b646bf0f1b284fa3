package dev.bolo.server.engine;

import java.util.Objects;

/**
 * The longest note an engine takes at all: a longer one is refused before any work (413 {@code
 * audio_too_long}), since the engine could not finish it within its deadline and would only hold
 * it, and an unbounded one exhausts the heap while it is decoded. Immutable.
 *
 * @param seconds the longest note, in seconds
 * @param engine the engine's name, for the refusal
 * @param setting the variable that sets it, for the refusal
 */
public record LongestNote(long seconds, String engine, String setting) {

  /** No limit beyond the gateway's own upload limit: engines that take a note of any length. */
  public static final LongestNote NONE = new LongestNote(Long.MAX_VALUE, "", "");

  public LongestNote {
    Objects.requireNonNull(engine, "engine");
    Objects.requireNonNull(setting, "setting");
    if (seconds < 1) {
      throw new IllegalArgumentException("seconds must be >= 1: " + seconds);
    }
  }

  /** Whether a note of {@code millis} is taken. */
  public boolean admits(long millis) {
    return millis / 1000.0 <= seconds;
  }

  /** Of two engines that may serve a note, the longest note either takes. */
  public LongestNote orLonger(LongestNote other) {
    return other.seconds > seconds ? other : this;
  }

  /** What a client is told of a note of {@code millis} this does not admit. */
  public String refusal(long millis) {
    return "this note is "
        + millis / 1000
        + " s long; the "
        + engine
        + " engine takes notes up to "
        + seconds
        + " s ("
        + setting
        + "); the openai and gemini engines take longer ones";
  }
}
