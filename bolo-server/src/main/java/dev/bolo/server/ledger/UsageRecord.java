package dev.bolo.server.ledger;

import dev.bolo.server.work.Replay;
import java.time.Instant;
import java.util.Objects;

/**
 * One answered transcription request.
 *
 * @param device the device's name
 * @param workKey {@link dev.bolo.server.work.WorkKey#asString()} of the work
 * @param audioSha256 the audio's hash
 * @param audioMillis the note's length
 * @param durationMeasured true when measured by the server, false when claimed by the client
 * @param engine the engine's name
 * @param outcome {@code ok} or the error code answered
 * @param replay where the answer came from: this request's own work, or other work
 * @param requestId the client's label
 * @param at when the request was answered
 */
public record UsageRecord(
    String device,
    String workKey,
    String audioSha256,
    long audioMillis,
    boolean durationMeasured,
    String engine,
    String outcome,
    Replay replay,
    String requestId,
    Instant at) {

  public UsageRecord {
    Objects.requireNonNull(device, "device");
    Objects.requireNonNull(workKey, "workKey");
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(replay, "replay");
    Objects.requireNonNull(at, "at");
  }

  /**
   * A request whose replay kind is not known: a replay counts as cached, as the rows recorded
   * before the kind was kept do.
   *
   * @param replayed true when the answer came from earlier or in-flight work
   */
  public UsageRecord(
      String device,
      String workKey,
      String audioSha256,
      long audioMillis,
      boolean durationMeasured,
      String engine,
      String outcome,
      boolean replayed,
      String requestId,
      Instant at) {
    this(
        device,
        workKey,
        audioSha256,
        audioMillis,
        durationMeasured,
        engine,
        outcome,
        replayed ? Replay.CACHED : Replay.NONE,
        requestId,
        at);
  }

  /** True when the answer came from earlier or in-flight work. */
  public boolean replayed() {
    return replay != Replay.NONE;
  }
}
