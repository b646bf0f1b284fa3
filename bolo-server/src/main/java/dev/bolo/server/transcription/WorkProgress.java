package dev.bolo.server.transcription;

/**
 * How far work running on this instance has got, in the note's own time: what a 202 {@code running}
 * tells a phone that asks while its note is recognised (PROTOCOL.md "Progress").
 *
 * @param doneMillis the note is done up to here, at most {@code totalMillis}
 * @param totalMillis the note's length as the gateway counted it, at least 1
 */
public record WorkProgress(long doneMillis, long totalMillis) {

  public WorkProgress {
    if (totalMillis < 1) {
      throw new IllegalArgumentException("totalMillis must be >= 1: " + totalMillis);
    }
    if (doneMillis < 0 || doneMillis > totalMillis) {
      throw new IllegalArgumentException(
          "doneMillis must be within 0.." + totalMillis + ": " + doneMillis);
    }
  }
}
