package dev.bolo.client;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** {@link Scheduler#system()}: one shared daemon timer thread, as an enum singleton. */
enum SystemScheduler implements Scheduler {
  INSTANCE;

  private final ScheduledThreadPoolExecutor timer = newTimer();

  @Override
  public Pending schedule(Duration delay, Runnable task) {
    ScheduledFuture<?> future = timer.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
    return () -> future.cancel(false);
  }

  private static ScheduledThreadPoolExecutor newTimer() {
    ScheduledThreadPoolExecutor timer =
        new ScheduledThreadPoolExecutor(
            1,
            task -> {
              Thread thread = new Thread(task, "bolo-client-timer");
              thread.setDaemon(true);
              return thread;
            });
    // No thread while no note is pausing: an app that never resends never keeps one.
    timer.setKeepAliveTime(1, TimeUnit.MINUTES);
    timer.allowCoreThreadTimeOut(true);
    // A cancelled pause must not keep its note (and audio) reachable until it would have run.
    timer.setRemoveOnCancelPolicy(true);
    return timer;
  }
}
