package dev.bolo.server.ledger;

import java.util.Objects;

/**
 * One device's usage over a {@link UsageQuery}.
 *
 * @param device the device's name
 * @param requests answered transcription requests
 * @param uniqueNotes distinct pieces of work (audio with its settings) answered with a transcript
 * @param replays requests answered from earlier or in-flight work
 * @param chargedMillis audio charged: successful work that was not a replay
 * @param savedMillis audio not charged because of de-duplication: successful replays
 */
public record DeviceUsage(
    String device,
    long requests,
    long uniqueNotes,
    long replays,
    long chargedMillis,
    long savedMillis) {

  public DeviceUsage {
    Objects.requireNonNull(device, "device");
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
        chargedMillis + other.chargedMillis,
        savedMillis + other.savedMillis);
  }
}
