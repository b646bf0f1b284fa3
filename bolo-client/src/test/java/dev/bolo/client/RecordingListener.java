package dev.bolo.client;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Records every event but upload progress as a line such as {@code "resend 1 after PT2S: HTTP
 * 503"}, and the note keys it saw. Thread-safe.
 */
final class RecordingListener implements TranscriptionListener {

  final List<String> events = new CopyOnWriteArrayList<>();
  final List<Attempt> attempts = new CopyOnWriteArrayList<>();
  final List<String> progress = new CopyOnWriteArrayList<>();
  final List<String> noteKeys = new CopyOnWriteArrayList<>();

  /** Each report of the gateway's progress, as {@code "2: 120.0/600.0"}. */
  final List<String> transcribing = new CopyOnWriteArrayList<>();

  /** The first note's outcome, once it has ended. */
  final CompletableFuture<Outcome> ended = new CompletableFuture<>();

  @Override
  public void attemptStarted(Attempt attempt) {
    attempts.add(attempt);
    noteKeys.add(attempt.idempotencyKey());
    events.add("start " + attempt.number());
  }

  @Override
  public void uploadProgress(Attempt attempt, long bytesSent, long bytesTotal) {
    noteKeys.add(attempt.idempotencyKey());
    progress.add(attempt.number() + ": " + bytesSent + "/" + bytesTotal);
  }

  @Override
  public void transcriptionProgress(Attempt attempt, double secondsDone, double secondsTotal) {
    noteKeys.add(attempt.idempotencyKey());
    transcribing.add(attempt.number() + ": " + secondsDone + "/" + secondsTotal);
  }

  @Override
  public void resendScheduled(Attempt failed, Duration pause, Failure reason) {
    noteKeys.add(failed.idempotencyKey());
    events.add("resend " + failed.number() + " after " + pause + ": " + reason.reason());
  }

  @Override
  public void ended(String noteKey, Outcome outcome) {
    noteKeys.add(noteKey);
    events.add(describe(outcome));
    ended.complete(outcome);
  }

  static String describe(Outcome outcome) {
    int n = outcome.attempts();
    if (outcome instanceof Outcome.Transcribed) {
      return "transcribed " + n;
    }
    if (outcome instanceof Outcome.Refused refused) {
      return "refused " + n + ": " + refused.error().reason();
    }
    if (outcome instanceof Outcome.GaveUp gaveUp) {
      return "gave up " + n + ": " + gaveUp.lastFailure().reason();
    }
    if (outcome instanceof Outcome.Cancelled) {
      return "cancelled " + n;
    }
    if (outcome instanceof Outcome.Unreadable unreadable) {
      return "unreadable " + n + ": " + unreadable.message();
    }
    return "changed " + n;
  }
}
