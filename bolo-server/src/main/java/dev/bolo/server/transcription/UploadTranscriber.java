package dev.bolo.server.transcription;

import dev.bolo.server.engine.Settings;
import dev.bolo.server.ledger.Device;
import dev.bolo.server.work.KeptTranscript;
import java.time.Duration;
import java.util.Optional;

/**
 * What the end of a resumable upload needs of the use case: {@link Transcriber} and its lookups
 * ({@link NoteLookup}), as an interface a test can stand in for. Implementations are thread safe.
 */
interface UploadTranscriber {
  /** Transcribes or replays the note; never throws for an expected failure. */
  Transcriber.Answer transcribe(Transcriber.Note note) throws InterruptedException;

  /** The device's stored transcript of this work, waiting up to {@code wait} for it. */
  Optional<KeptTranscript> stored(
      Device device, Settings settings, String audioSha256, Duration wait)
      throws InterruptedException;

  /** How far the device's running work with these settings and this hash has got, if known. */
  Optional<WorkProgress> progress(Device device, Settings settings, String audioSha256);

  /** The gateway's own use case. */
  static UploadTranscriber of(Transcriber transcriber) {
    NoteLookup lookups = transcriber.lookups();
    return new UploadTranscriber() {
      @Override
      public Transcriber.Answer transcribe(Transcriber.Note note) throws InterruptedException {
        return transcriber.transcribe(note);
      }

      @Override
      public Optional<KeptTranscript> stored(
          Device device, Settings settings, String audioSha256, Duration wait)
          throws InterruptedException {
        return lookups.stored(device, settings, audioSha256, wait);
      }

      @Override
      public Optional<WorkProgress> progress(Device device, Settings settings, String audioSha256) {
        return lookups.progress(device, settings, audioSha256);
      }
    };
  }
}
