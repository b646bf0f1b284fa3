package dev.bolo.client;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

/**
 * Records each pause and moves {@link FakeTime} forward by it instead of waiting. A pause whose
 * wake-up latch is already released ends at once, as a real one would.
 */
final class FakeSleeper implements Sleeper {

  /** Runs at the start of a pause, such as a cancel or an interrupt arriving mid-pause. */
  interface DuringPause {
    void run(int pauseIndex) throws InterruptedException;
  }

  private final FakeTime time;
  private final List<Duration> pauses = new CopyOnWriteArrayList<>();
  private volatile DuringPause duringPause = index -> {};

  FakeSleeper(FakeTime time) {
    this.time = time;
  }

  void duringPause(DuringPause action) {
    this.duringPause = action;
  }

  /** The pauses asked for, in order. */
  List<Duration> pauses() {
    return List.copyOf(pauses);
  }

  @Override
  public void sleep(Duration duration, CountDownLatch wakeUp) throws InterruptedException {
    pauses.add(duration);
    duringPause.run(pauses.size() - 1);
    if (wakeUp.getCount() == 0) {
      return;
    }
    time.advance(duration);
  }
}
