package dev.bolo.client;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import okhttp3.HttpUrl;
import org.jspecify.annotations.Nullable;

/**
 * Makes the attempts of one note over HTTP, each as OkHttp asynchronous calls: checks the audio
 * against the note's hash (on OkHttp's threads, never the app's), asks for the transcript before a
 * resend ({@link Lookup}), uploads the note ({@link WholeUpload}, or {@link TusUpload} when it is
 * large and the gateway has resumable uploads), and turns whatever happened into a {@link
 * Resender.AttemptResult}. No exception leaves it: every ending is a result.
 */
final class Uploader implements Resender.Sender {

  private final NoteRequests requests;
  private final HttpUrl endpoint;
  private final boolean lookupBeforeResend;
  private final RunningWork running;
  private final WholeUpload whole;
  private final @Nullable TusUpload resumable;
  private final AtomicBoolean gatewayHasUploads;

  /**
   * @param endpoint the gateway's {@code /v1/transcriptions}
   * @param uploads the gateway's tus endpoint, or null to send this note whole
   * @param gatewayHasUploads shared by the client's notes: set to false once the gateway answered a
   *     creation with 404 or 405, so later notes go straight to the plain upload
   * @param running the note's wait for work the gateway reports running, across its attempts
   */
  Uploader(
      NoteRequests requests,
      HttpUrl endpoint,
      boolean lookupBeforeResend,
      @Nullable HttpUrl uploads,
      AtomicBoolean gatewayHasUploads,
      RunningWork running) {
    this.requests = requests;
    this.endpoint = endpoint;
    this.lookupBeforeResend = lookupBeforeResend;
    this.gatewayHasUploads = gatewayHasUploads;
    this.running = running;
    this.whole = new WholeUpload(requests, endpoint);
    this.resumable = uploads == null ? null : new TusUpload(requests, uploads, running);
  }

  @Override
  public void send(Attempt attempt, Consumer<Resender.AttemptResult> done) {
    if (!requests.note.canChange()) {
      enqueue(attempt, done);
      return;
    }
    try {
      // Reading and hashing the audio is disk work: OkHttp's threads do it, not the app's.
      requests
          .http
          .dispatcher()
          .executorService()
          .execute(() -> checkThenEnqueueSafely(attempt, done));
    } catch (RejectedExecutionException shutDown) {
      // The app shut its OkHttp client down: that ends its notes, as a cancel would.
      requests.flag.cancel();
      done.accept(new Resender.Stopped());
    }
  }

  /** On a pool thread an exception would be lost and the note never end: make it a result. */
  private void checkThenEnqueueSafely(Attempt attempt, Consumer<Resender.AttemptResult> done) {
    try {
      checkThenEnqueue(attempt, done);
    } catch (RuntimeException bug) {
      done.accept(
          new Resender.Failed(
              new Failure.Network(
                  Failure.NetworkKind.PROTOCOL, "unexpected " + NetworkFailures.describe(bug))));
    }
  }

  private void checkThenEnqueue(Attempt attempt, Consumer<Resender.AttemptResult> done) {
    if (requests.flag.isCancelled()) {
      done.accept(new Resender.Stopped());
      return;
    }
    Resender.AttemptResult unusable = requests.checkAudio();
    if (unusable != null) {
      done.accept(unusable);
      return;
    }
    enqueue(attempt, done);
  }

  /**
   * A resend first asks whether the gateway already has the transcript (the answer to an earlier
   * attempt may have been lost on the way back); the first attempt has nothing to ask about.
   */
  private void enqueue(Attempt attempt, Consumer<Resender.AttemptResult> done) {
    if (attempt.number() == 1 || !lookupBeforeResend) {
      upload(attempt, done);
      return;
    }
    try {
      Lookup.ask(
          running,
          attempt,
          Lookup.request(
              endpoint,
              requests.token,
              requests.note.sha256(),
              requests.options,
              attempt,
              requests.attemptTimeout),
          answer -> afterLookup(attempt, answer, done));
    } catch (RuntimeException rejected) {
      // An app interceptor or event listener factory that throws: nothing was sent.
      done.accept(requests.rejected(rejected));
    }
  }

  private void afterLookup(
      Attempt attempt, Lookup.Answer answer, Consumer<Resender.AttemptResult> done) {
    // Java 17: no pattern switch; each answer is one type.
    if (answer instanceof Lookup.Found found) {
      done.accept(new Resender.Succeeded(found.transcript()));
    } else if (answer instanceof Lookup.Ended ended) {
      done.accept(ended.result());
    } else if (requests.flag.isCancelled()) {
      // Cancelled between the lookup's answer and the upload: a cancel is final.
      done.accept(new Resender.Stopped());
    } else {
      upload(attempt, done);
    }
  }

  /** Sends the note resumably when it is large and the gateway has uploads, else whole. */
  private void upload(Attempt attempt, Consumer<Resender.AttemptResult> done) {
    TusUpload tus = resumable;
    if (tus == null || !gatewayHasUploads.get()) {
      whole.send(attempt, done);
      return;
    }
    tus.send(
        attempt,
        done,
        () -> {
          // Remembered for the client's later notes: this gateway has no resumable uploads.
          gatewayHasUploads.set(false);
          whole.send(attempt, done);
        });
  }
}
