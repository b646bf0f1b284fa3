package dev.bolo.server.ledger;

import java.util.Objects;

/**
 * One device's usage over a {@link UsageQuery}.
 *
 * <p>Every request is one of three: {@link #transcribed()} by its own work, one of the {@code
 * replays}, or {@code failed}; the three add up to {@code requests}.
 *
 * @param device the device's name
 * @param requests answered transcription requests
 * @param uniqueNotes distinct pieces of work (audio with its settings) answered with a transcript:
 *     a count of notes, not of requests (a note transcribed again after its replay time is one)
 * @param replays requests answered from earlier or in-flight work, whatever that work ended in
 * @param failed requests whose own work ended in an error (the engine refused the note or failed)
 *     instead of a transcript
 * @param chargedMillis audio charged: successful work that was not a replay
 * @param savedMillis audio not charged because of de-duplication: successful replays
 */
public record DeviceUsage(
    String device,
    long requests,
    long uniqueNotes,
    long replays,
    long failed,
    long chargedMillis,
    long savedMillis) {

  public DeviceUsage {
    Objects.requireNonNull(device, "device");
  }

  /** Requests transcribed by their own work: neither a replay nor failed. */
  public long transcribed() {
    return requests - replays - failed;
  }

  /** Replays per request, 0 when there were no requests. */
  public double redundancyRate() {
    return requests == 0 ? 0 : (double) replays / requests;
  }

  /** The sum of two summaries, named {@code device}. */
  public DeviceUsage plus(DeviceUsage other, String device) {
    return new DeviceUsage(
        device,
        requests + other.requests,
        uniqueNotes + other.uniqueNotes,
        replays + other.replays,
        failed + other.failed,
        chargedMillis + other.chargedMillis,
        savedMillis + other.savedMillis);
  }
}
