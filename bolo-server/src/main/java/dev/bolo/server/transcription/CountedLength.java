package dev.bolo.server.transcription;

import java.util.OptionalLong;

/**
 * A note's length as the gateway counts it (for quota, timeouts and usage), and whether the server
 * measured it.
 *
 * @param millis the length in milliseconds
 * @param measured true when the server measured it from the container, false for a claim or an
 *     estimate
 */
record CountedLength(long millis, boolean measured) {

  /**
   * For a note whose length the server could not measure and the client did not say: assume 32
   * kbit/s, a low speech bitrate, so the estimate errs towards charging more seconds rather than
   * fewer.
   */
  private static final long ESTIMATE_BYTES_PER_SECOND = 4_000;

  /**
   * The server's measurement where the container allows one. Otherwise the larger of the client's
   * claim and the size estimate: a claim is only a claim, and a claim of 0 never makes a note free.
   */
  static CountedLength of(Transcriber.Note note) {
    OptionalLong measured = note.audio().measuredDurationMs();
    if (measured.isPresent()) {
      return new CountedLength(measured.getAsLong(), true);
    }
    long estimate = note.audio().size() * 1000 / ESTIMATE_BYTES_PER_SECOND;
    return new CountedLength(Math.max(estimate, note.claimedDurationMs().orElse(0)), false);
  }

  /**
   * The length a transcribed note is charged, the one place the charge is decided (PROTOCOL.md rule
   * 8), given the length its engine found ({@link
   * dev.bolo.server.engine.EngineResult.Transcribed#reportedDurationMs}: the provider's reported
   * duration, or the samples the gateway decoded).
   *
   * <ul>
   *   <li>Measured from the container: the larger of the two. A header is the sender's to write and
   *       is only checked to be plausible for the note's size, which leaves room for a note of
   *       hours to claim seconds; the samples and the provider's duration are what was heard.
   *   <li>Not measured (a claim or an estimate from the size): the engine's length, larger or
   *       smaller, since it is the only one taken from the audio itself.
   *   <li>No length from the engine: this one stands.
   * </ul>
   */
  CountedLength chargedFor(OptionalLong heardMs) {
    if (heardMs.isEmpty()) {
      return this;
    }
    long heard = heardMs.getAsLong();
    return new CountedLength(measured ? Math.max(millis, heard) : heard, measured);
  }
}
