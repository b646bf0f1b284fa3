package dev.bolo.cli;

import dev.bolo.client.TranscriptionHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Ctrl-C (or any JVM shutdown) while notes are in flight: cancels every note, so that no attempt
 * starts after it, and gives them a moment to report before the JVM exits. Thread-safe: the hook
 * runs on a thread of its own.
 */
final class CancelOnExit implements AutoCloseable {

  /** How long Ctrl-C waits for cancelled notes to report before the JVM exits. */
  private static final Duration CANCEL_GRACE = Duration.ofSeconds(5);

  private final List<TranscriptionHandle> handles = new ArrayList<>();
  private boolean exiting;
  private final CountDownLatch reported = new CountDownLatch(1);
  private final Thread hook = new Thread(this::cancelAll, "bolo-transcribe-cancel");

  private CancelOnExit() {}

  /** Installs the hook; {@link #close()} removes it once the notes are reported. */
  static CancelOnExit install() {
    CancelOnExit onExit = new CancelOnExit();
    Runtime.getRuntime().addShutdownHook(onExit.hook);
    return onExit;
  }

  /** A note to cancel on exit; cancelled at once when the exit has begun. */
  synchronized void add(TranscriptionHandle handle) {
    if (exiting) {
      handle.cancel();
      return;
    }
    handles.add(handle);
  }

  private void cancelAll() {
    synchronized (this) {
      exiting = true;
      handles.forEach(TranscriptionHandle::cancel);
    }
    awaitQuietly();
  }

  /** Every note is reported: a Ctrl-C from now on has nothing to wait for. */
  @Override
  public void close() {
    reported.countDown();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // Ctrl-C arrived: the hook is running and must be left to finish.
    }
  }

  private void awaitQuietly() {
    try {
      if (!reported.await(CANCEL_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
        return; // The JVM exits anyway; the notes are cancelled, only their report is lost.
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
