package dev.bolo.client;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records every event as a line such as {@code "resend 1 after PT2S: HTTP 503"}. Thread-safe. */
final class RecordingListener implements TranscriptionListener {

  final List<String> events = new CopyOnWriteArrayList<>();
  final List<Attempt> attempts = new CopyOnWriteArrayList<>();

  @Override
  public void attemptStarted(Attempt attempt) {
    attempts.add(attempt);
    events.add("start " + attempt.number());
  }

  @Override
  public void resendScheduled(Attempt failed, Duration delay, Failure reason) {
    events.add("resend " + failed.number() + " after " + delay + ": " + reason.reason());
  }

  @Override
  public void gaveUp(Attempt last, Failure lastFailure) {
    events.add("gave up " + last.number() + ": " + lastFailure.reason());
  }

  @Override
  public void succeeded(Attempt attempt, Transcript transcript) {
    events.add("succeeded " + attempt.number());
  }
}
