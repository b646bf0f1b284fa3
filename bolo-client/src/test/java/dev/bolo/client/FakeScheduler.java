package dev.bolo.client;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

/**
 * Records each pause and, instead of waiting, moves {@link FakeTime} forward by it and runs the
 * next attempt at once, on the thread that scheduled it. A pause during which the note was
 * cancelled ends without time passing, as a real one would.
 */
final class FakeScheduler implements Scheduler {

  /** Runs at the start of a pause, such as a cancel arriving mid-pause. */
  interface DuringPause {
    void run(int pauseIndex) throws InterruptedException;
  }

  private final FakeTime time;
  private final List<Duration> pauses = new CopyOnWriteArrayList<>();
  private volatile DuringPause duringPause = index -> {};
  private volatile BooleanSupplier cancelled = () -> false;

  FakeScheduler(FakeTime time) {
    this.time = time;
  }

  void duringPause(DuringPause action) {
    this.duringPause = action;
  }

  /** Tells the scheduler how to see that the note was cancelled during a pause. */
  void cancelledWhen(BooleanSupplier cancelled) {
    this.cancelled = cancelled;
  }

  /** The pauses asked for, in order. */
  List<Duration> pauses() {
    return List.copyOf(pauses);
  }

  /** As {@link Timing}, with a fixed random seed. */
  Timing timing() {
    return Timing.builder()
        .clock(time.clock())
        .ticker(time.ticker())
        .scheduler(this)
        .random(new java.util.Random(1))
        .build();
  }

  @Override
  public Pending schedule(Duration delay, Runnable task) {
    pauses.add(delay);
    try {
      duringPause.run(pauses.size() - 1);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted during a fake pause", e);
    }
    if (!cancelled.getAsBoolean()) {
      time.advance(delay);
      task.run();
    }
    return () -> {};
  }
}
