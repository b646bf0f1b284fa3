package dev.bolo.server.dedup;

import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Stops one run of work that every waiter on this instance withdrew from (a cancelled job): its
 * engine call is interrupted, as a closing gateway interrupts it, so the provider's call is
 * cancelled and the offline engine's pieces stop at their next poll. Only the call is interrupted,
 * never what the work does after it (charging a transcript the provider already made, storing it).
 *
 * <p>Thread safe.
 */
public final class WorkStop {

  private boolean stopped;
  private @Nullable Thread calling;

  /**
   * Runs {@code call} on this thread, interrupted if the work is stopped meanwhile; {@code
   * ifStopped} without running it when the work was stopped before. The interrupt this stop made is
   * cleared once the call has returned.
   */
  public <T> T during(Supplier<T> call, Supplier<T> ifStopped) {
    synchronized (this) {
      if (stopped) {
        return ifStopped.get();
      }
      calling = Thread.currentThread();
    }
    try {
      return call.get();
    } finally {
      synchronized (this) {
        calling = null;
        if (stopped) {
          // The stop was meant for the call: what follows it (a release, a store) must run.
          Thread.interrupted();
        }
      }
    }
  }

  /** Whether the work was stopped. */
  public synchronized boolean stopped() {
    return stopped;
  }

  /** Stops the work: the call running now is interrupted, a later one is not made. */
  synchronized void stop() {
    stopped = true;
    Thread thread = calling;
    if (thread != null) {
      thread.interrupt();
    }
  }
}
