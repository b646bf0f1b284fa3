package dev.bolo.server.transcription;

import dev.bolo.server.engine.Settings;
import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.StoredUpload;
import dev.bolo.server.upload.PartialNote;
import dev.bolo.server.upload.SpooledAudio;
import dev.bolo.server.work.KeptTranscript;
import dev.bolo.server.work.Problem;
import dev.bolo.server.work.WorkResult;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end of a resumable upload: once its last byte arrived, its bytes become a {@link NoteRequest}
 * that goes through the {@link Intake} as a POST's does (the hash check, the settings) and is
 * transcribed on a thread of its own, so a client that goes away never cancels it; how it ended is
 * recorded with the upload. Also answers where an upload's transcription is, and runs the work
 * again for an upload whose transcription died with an earlier run of this instance. Thread safe.
 */
final class UploadCompletion {

  private static final Logger log = LoggerFactory.getLogger(UploadCompletion.class);

  /** How often a wait for work run elsewhere reads the upload's record again. */
  private static final Duration RECHECK = Duration.ofMillis(250);

  private final UploadStore store;
  private final Intake intake;
  private final UploadTranscriber transcriber;
  private final Executor work;
  private final LongSupplier waits;
  private final ConcurrentHashMap<String, CompletableFuture<UploadEnding>> running =
      new ConcurrentHashMap<>();

  /**
   * Uploads of this instance whose note an earlier run was transcribing when it stopped (killed,
   * crashed): their bytes are still in the spool, and the next request for the answer runs the work
   * again. Guarded by itself for taking one out and starting its run.
   */
  private final Set<String> orphans = ConcurrentHashMap.newKeySet();

  /**
   * @param intake where transcriptions come in, as a POST's do
   * @param work runs transcriptions that outlive the request that completed the upload
   * @param waits elapsed nanoseconds for a wait for work run elsewhere, which passes in real time
   */
  UploadCompletion(
      UploadStore store,
      Intake intake,
      UploadTranscriber transcriber,
      Executor work,
      LongSupplier waits) {
    this.store = Objects.requireNonNull(store, "store");
    this.intake = Objects.requireNonNull(intake, "intake");
    this.transcriber = Objects.requireNonNull(transcriber, "transcriber");
    this.work = Objects.requireNonNull(work, "work");
    this.waits = Objects.requireNonNull(waits, "waits");
  }

  /**
   * Ends the upload whose last byte arrived: checks the note, then transcribes it as a POST's. The
   * caller holds the upload's lock. The note leaves the store only once the record says how the
   * upload ended: until then a late append waits for the lock and then reads that record.
   */
  CompletableFuture<UploadEnding> complete(
      Device device, StoredUpload upload, PartialNote note, String requestId) throws IOException {
    try {
      SpooledAudio audio;
      switch (store.read(upload, note)) {
        case PartialNote.Finished.Unusable refused -> {
          return CompletableFuture.completedFuture(
              record(upload.id(), new UploadEnding.Unusable(refused.why())));
        }
        case PartialNote.Finished.Note ready -> audio = ready.audio();
      }
      return start(device, upload, audio, requestId);
    } finally {
      store.forget(upload.id());
    }
  }

  /** Hands the note to the {@link Intake}, then to the work; the audio is this call's to close. */
  private CompletableFuture<UploadEnding> start(
      Device device, StoredUpload upload, SpooledAudio audio, String requestId) {
    Transcriber.Note call;
    switch (accept(device, upload, audio, requestId)) {
      case Intake.Acceptance.Refused refused -> {
        return CompletableFuture.completedFuture(
            record(upload.id(), endingOf(upload, refused.refusal())));
      }
      case Intake.Acceptance.Accepted accepted -> call = accepted.note();
    }
    CompletableFuture<UploadEnding> ending = new CompletableFuture<>();
    try {
      store.startTranscription(upload.id(), audio.sha256());
    } catch (RuntimeException e) {
      // The ledger cannot record the work, so none starts: the note's bytes and their budget are
      // given back, and the upload ends unavailable instead of staying open at its length.
      log.warn("could not start transcribing upload {}: {}", upload.id(), e.toString());
      audio.close();
      end(upload.id(), ending, UploadEnding.notStarted());
      return ending;
    }
    running.put(upload.id(), ending);
    try {
      work.execute(() -> transcribe(upload.id(), call, ending));
    } catch (RuntimeException rejected) {
      // Nothing will run it (the gateway is stopping): it ends now, not transcribing until expiry.
      log.warn("could not start transcribing upload {}: {}", upload.id(), rejected.toString());
      audio.close();
      end(upload.id(), ending, UploadEnding.notStarted());
    }
    return ending;
  }

  /**
   * What the {@link Intake} makes of the upload's note, read as a POST of it would be: its
   * settings, its declared hash and its idempotency key; its length is the server's measurement or
   * estimate, never a claim. A refused note's audio is closed.
   */
  private Intake.Acceptance accept(
      Device device, StoredUpload upload, SpooledAudio audio, String requestId) {
    Intake.Acceptance acceptance =
        intake.acceptUploaded(
            new NoteRequest(
                device,
                audio,
                SettingFields.of(UploadStore.fieldsOf(upload)),
                upload.declaredSha256(),
                OptionalLong.empty(),
                upload.idempotencyKey(),
                requestId));
    if (acceptance instanceof Intake.Acceptance.Refused) {
      audio.close();
    }
    return acceptance;
  }

  /**
   * How a note the intake refused ends. Its settings were checked when the upload was created, so
   * only the hash can be wrong by now.
   */
  private static UploadEnding endingOf(StoredUpload upload, NoteRefusal refusal) {
    return switch (refusal) {
      case NoteRefusal.HashMismatch mismatch ->
          new UploadEnding.HashMismatch(mismatch.claimed(), mismatch.computed());
      case NoteRefusal.Malformed m -> internal(upload, refusal);
      case NoteRefusal.NotOffered n -> internal(upload, refusal);
      case NoteRefusal.TranslationUnsupported t -> internal(upload, refusal);
    };
  }

  private static UploadEnding internal(StoredUpload upload, NoteRefusal refusal) {
    log.error(
        "upload {} was refused at its end although checked at its creation: {}",
        upload.id(),
        refusal);
    return new UploadEnding.Failed(
        new WorkResult.Refused(Problem.INTERNAL, "internal error; the note was not transcribed"));
  }

  private void transcribe(
      String id, Transcriber.Note call, CompletableFuture<UploadEnding> ending) {
    UploadEnding ended;
    try (SpooledAudio audio = call.audio()) {
      Transcriber.Answer answer = transcriber.transcribe(call);
      ended =
          switch (answer.outcome()) {
            case WorkResult.Success success ->
                new UploadEnding.Transcribed(
                    success.transcript(),
                    answer.replayed(),
                    call.settings().model(),
                    call.responseFormat());
            case WorkResult.Refused refused -> new UploadEnding.Failed(refused);
          };
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      ended =
          new UploadEnding.Failed(
              new WorkResult.Refused(
                  Problem.SERVER_UNAVAILABLE, "the gateway stopped while transcribing; resend"));
    } catch (RuntimeException | Error bug) {
      log.error("transcribing upload {} failed", id, bug);
      ended =
          new UploadEnding.Failed(
              new WorkResult.Refused(
                  Problem.INTERNAL, "internal error; the note was not transcribed"));
    }
    end(id, ending, ended);
  }

  private UploadEnding record(String id, UploadEnding ending) {
    store.record(id, ending);
    return ending;
  }

  /** Records how an upload's transcription ended, and answers whoever waits for it. */
  private void end(String id, CompletableFuture<UploadEnding> ending, UploadEnding ended) {
    try {
      store.record(id, ended);
    } catch (RuntimeException e) {
      log.warn("could not record how upload {} ended: {}", id, e.toString());
    } finally {
      ending.complete(ended);
      running.remove(id, ending);
    }
  }

  /**
   * Where the upload's transcription is, waiting up to {@code wait} for running work. The note of
   * an upload whose transcription died with an earlier run of this instance is transcribed again
   * (or joined to the work a copy of it runs), from the bytes still in the spool.
   *
   * @param requestId the asking request's id, for the work run again on its behalf
   * @throws InterruptedException if the request thread is interrupted; the work goes on
   */
  UploadProgress progress(Device device, StoredUpload upload, Duration wait, String requestId)
      throws InterruptedException {
    return switch (upload.state()) {
      case OPEN -> new UploadProgress.Incomplete();
      case TRANSCRIBING -> {
        if (orphans.contains(upload.id())) {
          runAgain(device, upload, requestId);
        }
        yield awaitRunning(device, upload, wait, requestId);
      }
      case DONE -> {
        String sha = Objects.requireNonNull(upload.audioSha256(), "hash of a finished upload");
        boolean replayed = EndingCodec.replayed(upload);
        Settings settings = settingsOf(upload);
        yield transcriber
            .stored(device, settings, sha, Duration.ZERO)
            .<UploadProgress>map(
                t ->
                    new UploadProgress.Ended(
                        new UploadEnding.Transcribed(
                            t, replayed, settings.model(), settings.responseFormat())))
            .orElseGet(UploadProgress.Gone::new);
      }
      case FAILED -> new UploadProgress.Ended(EndingCodec.failure(upload));
    };
  }

  /**
   * The canonical settings an upload was created with. They were checked then; the model stays the
   * one asked for even if it is no longer offered, as for a POST that was already accepted.
   */
  private Settings settingsOf(StoredUpload upload) {
    return intake.settingsOfUploaded(SettingFields.of(UploadStore.fieldsOf(upload)));
  }

  private UploadProgress awaitRunning(
      Device device, StoredUpload upload, Duration wait, String requestId)
      throws InterruptedException {
    CompletableFuture<UploadEnding> local = running.get(upload.id());
    if (local != null) {
      try {
        return new UploadProgress.Ended(local.get(wait.toMillis(), TimeUnit.MILLISECONDS));
      } catch (TimeoutException e) {
        return running(device, upload);
      } catch (ExecutionException e) {
        throw new IllegalStateException("an upload's ending never fails", e);
      }
    }
    // Transcribed on another instance, or just finished here: the record and the store know. The
    // store waits for work it sees running; work not claimed yet (the holder has only just queued
    // it) is vacant there, so the record is read again until the wait is over.
    Settings settings = settingsOf(upload);
    String sha = Objects.requireNonNull(upload.audioSha256(), "hash of a transcribing upload");
    long deadline = waits.getAsLong() + wait.toNanos();
    while (true) {
      Optional<StoredUpload> now = store.find(device, upload.id());
      if (now.isPresent() && now.get().state() != StoredUpload.State.TRANSCRIBING) {
        return progress(device, now.get(), Duration.ZERO, requestId);
      }
      long left = Math.max(0, deadline - waits.getAsLong());
      Optional<KeptTranscript> stored =
          transcriber.stored(device, settings, sha, Duration.ofNanos(left));
      if (stored.isPresent()) {
        return new UploadProgress.Ended(
            new UploadEnding.Transcribed(
                stored.get(), false, settings.model(), settings.responseFormat()));
      }
      left = deadline - waits.getAsLong();
      if (left <= 0) {
        return running(device, upload);
      }
      Thread.sleep(Math.min(TimeUnit.NANOSECONDS.toMillis(left) + 1, RECHECK.toMillis()));
    }
  }

  /** The upload's work runs: with how far it has got when it runs on this instance. */
  private UploadProgress running(Device device, StoredUpload upload) {
    String sha = upload.audioSha256();
    if (sha == null) {
      // Not expected once transcribing: the hash is recorded as the work starts.
      return new UploadProgress.Running(null);
    }
    return new UploadProgress.Running(
        transcriber.progress(device, settingsOf(upload), sha).orElse(null));
  }

  /**
   * After a start: keeps an upload a previous run was transcribing when it stopped for the next
   * request for its answer, which transcribes it again from the spool; one whose bytes are gone
   * ends 503 (the phone sends the note again).
   */
  void recover(StoredUpload transcribing) {
    if (store.hasFile(transcribing)) {
      store.holdAgain(transcribing);
      orphans.add(transcribing.id());
    } else {
      store.record(transcribing.id(), UploadEnding.lost());
    }
  }

  /**
   * Forgets an orphan deleted before anyone asked for it again: its bytes are its own to delete.
   */
  void forgetOrphan(String id) {
    if (orphans.remove(id)) {
      store.dropFile(id);
    }
  }

  /**
   * Runs the transcription of an orphaned upload again, once however many requests ask at the same
   * time: from the spool file, which must still hash to what the first run computed. The work key
   * is the same as the first run's, so a copy of the note running elsewhere is joined and a
   * transcript already stored is replayed; the device is charged at most once.
   */
  private void runAgain(Device device, StoredUpload upload, String requestId) {
    CompletableFuture<UploadEnding> ending = new CompletableFuture<>();
    synchronized (orphans) {
      if (!orphans.remove(upload.id())) {
        return;
      }
      running.put(upload.id(), ending);
    }
    String id = upload.id();
    SpooledAudio audio;
    try {
      switch (store.readAgain(upload)) {
        case PartialNote.Finished.Unusable refused -> {
          end(id, ending, new UploadEnding.Unusable(refused.why()));
          return;
        }
        case PartialNote.Finished.Note ready -> audio = ready.audio();
      }
    } catch (IOException | RuntimeException e) {
      log.warn("cannot transcribe upload {} again from the spool: {}", id, e.toString());
      store.dropFile(id);
      end(id, ending, UploadEnding.lost());
      return;
    }
    if (!audio.sha256().equals(upload.audioSha256())) {
      log.warn("the spool file of upload {} changed across the restart; not transcribed", id);
      audio.close();
      end(id, ending, UploadEnding.lost());
      return;
    }
    log.info("transcribing upload {} again: an earlier run stopped while transcribing it", id);
    Transcriber.Note call;
    switch (accept(device, upload, audio, requestId)) {
      case Intake.Acceptance.Refused refused -> {
        end(id, ending, endingOf(upload, refused.refusal()));
        return;
      }
      case Intake.Acceptance.Accepted accepted -> call = accepted.note();
    }
    try {
      work.execute(() -> transcribe(id, call, ending));
    } catch (RuntimeException rejected) {
      audio.close();
      end(id, ending, UploadEnding.lost());
    }
  }
}
