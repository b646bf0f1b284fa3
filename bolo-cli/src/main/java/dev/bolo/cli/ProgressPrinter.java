package dev.bolo.cli;

import dev.bolo.client.Attempt;
import dev.bolo.client.Failure;
import dev.bolo.client.Outcome;
import dev.bolo.client.TranscriptionListener;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Prints "FILE: retrying in N s (reason), attempt n of 4" on stderr always, and tells the run's
 * {@link NoGatewayHint} of every failure; and when {@code verbose} the upload's bytes, each resume
 * of a large note's upload after a lost link, the wait for the transcript, and the gateway's
 * progress while it transcribes ("transcribing: 120 of 600 s"). Thread safe: events arrive on
 * OkHttp's threads.
 */
final class ProgressPrinter implements TranscriptionListener {

  /** Upload progress is shown at each quarter, so a large note says a few lines, not hundreds. */
  private static final int STEPS = 4;

  private final Path file;
  private final PrintWriter err;
  private final boolean verbose;
  private final int maxAttempts;
  private final NoGatewayHint hint;
  private final AtomicInteger shownStep = new AtomicInteger();

  /** The whole seconds of the gateway's progress last shown: an answer that adds none is not. */
  private final AtomicLong shownSeconds = new AtomicLong(-1);

  ProgressPrinter(
      Path file, PrintWriter err, boolean verbose, int maxAttempts, NoGatewayHint hint) {
    this.file = file;
    this.err = err;
    this.verbose = verbose;
    this.maxAttempts = maxAttempts;
    this.hint = hint;
  }

  @Override
  public void attemptStarted(Attempt attempt) {
    shownStep.set(0);
  }

  @Override
  public void uploadProgress(Attempt attempt, long bytesSent, long bytesTotal) {
    if (!verbose || bytesTotal <= 0) {
      return;
    }
    int step = (int) Math.min(STEPS, bytesSent * STEPS / bytesTotal);
    if (step == 0 || shownStep.getAndAccumulate(step, Math::max) >= step) {
      return;
    }
    print(
        attemptLabel(attempt)
            + ": sent "
            + bytesSent
            + " of "
            + bytesTotal
            + " bytes"
            + (bytesSent >= bytesTotal ? "; waiting for the transcript" : ""));
  }

  @Override
  public void uploadResumed(Attempt attempt, long offset, long bytesTotal) {
    if (!verbose) {
      return;
    }
    print(attemptLabel(attempt) + ": link lost, resuming at byte " + offset + " of " + bytesTotal);
  }

  @Override
  public void transcriptionProgress(Attempt attempt, double secondsDone, double secondsTotal) {
    long done = Math.round(secondsDone);
    if (!verbose || shownSeconds.getAndSet(done) == done) {
      return;
    }
    print(file + ": transcribing: " + done + " of " + Math.round(secondsTotal) + " s");
  }

  @Override
  public void resendScheduled(Attempt failed, Duration pause, Failure reason) {
    hint.failed(reason);
    long seconds = Math.max(1, Math.round(pause.toMillis() / 1000.0));
    print(
        file
            + ": retrying in "
            + seconds
            + " s ("
            + FailureText.of(reason)
            + "), attempt "
            + (failed.number() + 1)
            + " of "
            + maxAttempts);
  }

  @Override
  public void ended(String noteKey, Outcome outcome) {
    // A note whose only attempt failed to connect was never resent: the hint is still due.
    if (outcome instanceof Outcome.GaveUp gaveUp) {
      hint.failed(gaveUp.lastFailure());
    }
  }

  private String attemptLabel(Attempt attempt) {
    return file + ": attempt " + attempt.number() + " of " + maxAttempts;
  }

  private void print(String line) {
    synchronized (err) {
      err.println(line);
      err.flush();
    }
  }
}
