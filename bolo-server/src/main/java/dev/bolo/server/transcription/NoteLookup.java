package dev.bolo.server.transcription;

import dev.bolo.server.dedup.DedupStore;
import dev.bolo.server.dedup.Resolution;
import dev.bolo.server.engine.InvalidSettingException;
import dev.bolo.server.engine.ResponseFormat;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.engine.Task;
import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.Ledger;
import dev.bolo.server.ledger.UsageRecord;
import dev.bolo.server.work.KeptTranscript;
import dev.bolo.server.work.Replay;
import dev.bolo.server.work.WorkKey;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers a resend that asks before uploading ({@code GET /v1/transcriptions/{sha256}}): the asking
 * device's finished work for these settings and this audio hash, if the store still holds it.
 *
 * <p>The hash is the phone's claim, not the server's measurement, so the answer can only ever be
 * work of the asking device: the work key is built exactly as for an upload, from the authenticated
 * device, the canonical settings and the hash. A lookup never claims the key, never runs an engine
 * and never charges; it only reads and awaits what the store holds. Thread safe.
 */
public final class NoteLookup {

  private static final Logger log = LoggerFactory.getLogger(NoteLookup.class);

  /** The longest a lookup may wait for running work (PROTOCOL.md: {@code wait} 0–60 s). */
  public static final Duration MAX_WAIT = Duration.ofSeconds(60);

  private final NoteSettings noteSettings;
  private final DedupStore store;
  private final Ledger ledger;
  private final Clock clock;
  private final TranscriptionMeters meters;
  private final ProgressBoard progress;

  NoteLookup(
      NoteSettings noteSettings,
      DedupStore store,
      Ledger ledger,
      Clock clock,
      TranscriptionMeters meters,
      ProgressBoard progress) {
    this.noteSettings = Objects.requireNonNull(noteSettings, "noteSettings");
    this.store = Objects.requireNonNull(store, "store");
    this.ledger = Objects.requireNonNull(ledger, "ledger");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.meters = Objects.requireNonNull(meters, "meters");
    this.progress = Objects.requireNonNull(progress, "progress");
  }

  /** What a lookup found. */
  public sealed interface Found {

    /**
     * The work is finished and replayable: answer its transcript as a replay.
     *
     * @param model the model the work ran with, its alias resolved
     * @param format the format the lookup asked its text in
     */
    record Finished(KeptTranscript transcript, String model, ResponseFormat format)
        implements Found {
      public Finished {
        Objects.requireNonNull(transcript, "transcript");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(format, "format");
      }
    }

    /**
     * The work is still running after the wait.
     *
     * @param progress how far it has got, when it runs on this instance; else null
     */
    record Running(@Nullable WorkProgress progress) implements Found {}

    /** Unknown, expired or failed: the phone must upload the note. */
    record Absent() implements Found {}

    /** The settings asked for are none an upload could have: nothing was looked up. */
    record Refused(NoteRefusal refusal) implements Found {}
  }

  /**
   * Looks up the device's work.
   *
   * @param fields the settings as the upload sent them; they become canonical by the upload's rule
   * @param audioSha256 64 lower-case hex digits
   * @param wait how long to wait for running work, at most {@link #MAX_WAIT}
   * @param requestId the client's label, for the usage row of a replay
   * @throws InterruptedException if the request thread is interrupted; the work goes on
   */
  public Found find(
      Device device, SettingFields fields, String audioSha256, Duration wait, String requestId)
      throws InterruptedException {
    if (wait.isNegative() || wait.compareTo(MAX_WAIT) > 0) {
      throw new IllegalArgumentException("wait must be within 0..60 s: " + wait);
    }
    Settings settings;
    try {
      settings = noteSettings.offered(Task.TRANSCRIBE, fields);
    } catch (InvalidSettingException e) {
      return new Found.Refused(NoteSettings.refusalOf(e));
    }
    WorkKey key = noteSettings.keyOf(device.name(), settings, audioSha256);
    Resolution resolution = store.await(key, wait);
    Found found =
        switch (resolution) {
          case Resolution.Completed done ->
              replay(device, key, done.transcript(), settings, requestId);
          case Resolution.Pending pending -> new Found.Running(progress.of(key).orElse(null));
          // A failure is not kept (rule 4): the next copy runs afresh, so the phone uploads it.
          case Resolution.Failed failed -> new Found.Absent();
          case Resolution.Vacant vacant -> new Found.Absent();
        };
    meters.lookedUp(nameOf(found));
    return found;
  }

  /**
   * The device's transcript of this work if the store holds it (waiting up to {@code wait} for
   * running work), without counting or recording a replay: a resumable upload fetching the answer
   * of its own work.
   */
  Optional<KeptTranscript> stored(
      Device device, Settings settings, String audioSha256, Duration wait)
      throws InterruptedException {
    WorkKey key = noteSettings.keyOf(device.name(), settings, audioSha256);
    if (store.await(key, wait) instanceof Resolution.Completed done
        && done.transcript().answers(key)) {
      return Optional.of(done.transcript());
    }
    return Optional.empty();
  }

  /** How far the device's work with these settings and this hash has got, when it runs here. */
  Optional<WorkProgress> progress(Device device, Settings settings, String audioSha256) {
    return progress.of(noteSettings.keyOf(device.name(), settings, audioSha256));
  }

  private static String nameOf(Found found) {
    return switch (found) {
      case Found.Finished f -> "finished";
      case Found.Running r -> "running";
      case Found.Absent a -> "absent";
      case Found.Refused r -> "refused";
    };
  }

  private Found replay(
      Device device, WorkKey key, KeptTranscript transcript, Settings settings, String requestId) {
    // The same bug guard as an upload's replay; here the safe answer is "upload it".
    if (!transcript.answers(key)) {
      log.error("stored transcript does not answer its key {}", key.asString());
      return new Found.Absent();
    }
    meters.answered("ok", Replay.CACHED, transcript.durationMs());
    try {
      // Recorded like an upload's replay: operators count the seconds replays saved.
      ledger.record(
          new UsageRecord(
              device.name(),
              key.asString(),
              key.audioSha256(),
              transcript.durationMs(),
              transcript.durationMeasured(),
              transcript.engine(),
              "ok",
              Replay.CACHED,
              requestId,
              clock.instant()));
    } catch (RuntimeException e) {
      // The transcript is worth more to the user than the usage row: answer anyway.
      log.error("could not record usage: {}", e.getMessage());
    }
    return new Found.Finished(transcript, settings.model(), settings.responseFormat());
  }
}
