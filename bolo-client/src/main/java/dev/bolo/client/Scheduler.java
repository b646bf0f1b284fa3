package dev.bolo.client;

import java.time.Duration;

/**
 * Runs a task after a pause between attempts, without holding a thread while it waits. Injected
 * through {@link Timing} so that tests (and coroutine tests on virtual time) run the resend policy
 * on a clock of their own.
 *
 * <p>Implementations must be thread-safe: one scheduler serves every note of a client.
 */
@FunctionalInterface
public interface Scheduler {

  /** A scheduled task that has not run yet. */
  @FunctionalInterface
  interface Pending {
    /** Makes sure the task does not run; harmless once it has run. */
    void cancel();
  }

  /** Runs {@code task} once, on any thread, after {@code delay} unless cancelled first. */
  Pending schedule(Duration delay, Runnable task);

  /**
   * Real time: one daemon thread shared by every client, started at the first pause and stopped
   * after a minute without one. The task only hands the next attempt to OkHttp, so one thread is
   * enough for any number of notes.
   */
  static Scheduler system() {
    return SystemScheduler.INSTANCE;
  }
}
