package dev.bolo.server.transcription;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LockerTest {

  private static final long TIMEOUT_SECONDS = 10;

  private final Locker locker = new Locker();

  @Test
  void anUploadHeldOnOneThreadIsRefusedToAnotherOnceItsWaitIsOver() throws Exception {
    try (Locker.Held held = locker.tryLock("a", Duration.ZERO).orElseThrow()) {
      assertThat(takenOnAnotherThread("a", Duration.ofMillis(50)).get()).isFalse();
    }
  }

  @Test
  void aWaiterGetsTheLockOnceItsHolderGivesItBack() throws Exception {
    Locker.Held first = locker.tryLock("a", Duration.ZERO).orElseThrow();
    CountDownLatch waiting = new CountDownLatch(1);
    CompletableFuture<Boolean> second =
        CompletableFuture.supplyAsync(
            () -> {
              waiting.countDown();
              return taken(locker.tryLock("a", Duration.ofSeconds(TIMEOUT_SECONDS)));
            });
    assertThat(waiting.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();

    first.close();

    assertThat(second.get(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void locksOfDifferentUploadsNeverWaitForEachOther() throws Exception {
    try (Locker.Held held = locker.tryLock("a", Duration.ZERO).orElseThrow()) {
      assertThat(takenOnAnotherThread("b", Duration.ZERO).get()).isTrue();
    }
  }

  @Test
  void theLockOfAnUploadNobodyHoldsOrWaitsForIsForgotten() throws Exception {
    Locker.Held held = locker.tryLock("a", Duration.ZERO).orElseThrow();
    assertThat(takenOnAnotherThread("a", Duration.ZERO).get()).isFalse();
    assertThat(locker.inUse()).isEqualTo(1);

    held.close();

    assertThat(locker.inUse()).isZero();
  }

  /** Whether another thread takes the lock (and gives it back at once). */
  private CompletableFuture<Boolean> takenOnAnotherThread(String id, Duration wait) {
    return CompletableFuture.supplyAsync(() -> taken(locker.tryLock(id, wait)))
        .orTimeout(TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }

  private static boolean taken(Optional<Locker.Held> held) {
    held.ifPresent(Locker.Held::close);
    return held.isPresent();
  }
}
