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
   * A length the gateway could not measure gives way to the provider's report (PROTOCOL.md rule 8);
   * a measured one stands.
   */
  CountedLength correctedBy(OptionalLong reportedMs) {
    return measured || reportedMs.isEmpty()
        ? this
        : new CountedLength(reportedMs.getAsLong(), false);
  }
}
