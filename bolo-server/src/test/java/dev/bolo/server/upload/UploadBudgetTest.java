package dev.bolo.server.upload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The byte budget as a specification: who is admitted, who waits, who is refused, in what order.
 */
class UploadBudgetTest {

  private static final long MB = 1_000_000;

  /** Long enough never to lapse in a test that expects an admission. */
  private static final Duration PATIENT = Duration.ofSeconds(30);

  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

  @AfterEach
  void stopThreads() {
    threads.shutdownNow();
  }

  @Test
  void largeBodiesAreAdmittedWhileTheyFitAndTheNextIsRefusedAtOnceWithoutAWait() {
    UploadBudget budget = new UploadBudget(50 * MB, MB);
    UploadBudget.Admission first = admitted(budget, 20 * MB, Duration.ZERO);
    UploadBudget.Admission second = admitted(budget, 20 * MB, Duration.ZERO);

    assertThat(budget.admit(20 * MB, Duration.ZERO)).as("40 of 50 MB in flight").isNull();
    assertThat(budget.inUseBytes()).isEqualTo(40 * MB);
    assertThat(budget.waiting()).isZero();

    first.close();
    second.close();
    assertThat(budget.inUseBytes()).isZero();
  }

  @Test
  void smallBodiesPassWhileLargeOnesHoldTheWholeBudget() {
    UploadBudget budget = new UploadBudget(40 * MB, MB);
    UploadBudget.Admission large = admitted(budget, 40 * MB, Duration.ZERO);

    UploadBudget.Admission small = admitted(budget, 200_000, Duration.ZERO);
    assertThat(budget.inUseBytes()).as("small bodies are counted").isEqualTo(40 * MB + 200_000);
    assertThat(budget.admit(2 * MB, Duration.ZERO)).isNull();

    small.close();
    large.close();
    assertThat(budget.inUseBytes()).isZero();
  }

  @Test
  void aBodyLargerThanTheWholeBudgetRunsAloneOnceTheBudgetIsEmpty() throws Exception {
    UploadBudget budget = new UploadBudget(30 * MB, MB);
    UploadBudget.Admission held = admitted(budget, 10 * MB, Duration.ZERO);
    CompletableFuture<UploadBudget.@Nullable Admission> huge = admitLater(budget, 100 * MB);
    Await.until(() -> budget.waiting() == 1, () -> budget.waiting() + " waiting");

    held.close();

    UploadBudget.Admission admitted = Objects.requireNonNull(huge.get(10, TimeUnit.SECONDS));
    assertThat(budget.inUseBytes()).as("charged the whole budget").isEqualTo(30 * MB);
    admitted.close();
    assertThat(budget.inUseBytes()).isZero();
  }

  @Test
  void aLongNoteIsChargedOneCoresShareSoNotesBehindItStillFit() {
    long mib = 1024 * 1024;
    UploadBudget budget = new UploadBudget(128 * mib, mib);
    UploadBudget.Admission longNote = admitted(budget, 500 * MB, Duration.ZERO);
    assertThat(budget.inUseBytes()).isEqualTo(UploadBudget.MAX_CHARGE_BYTES).isEqualTo(64 * mib);

    UploadBudget.Admission beside = admitted(budget, 60 * mib, Duration.ZERO);
    assertThat(budget.admit(5 * mib, Duration.ZERO)).as("the budget is full now").isNull();

    beside.close();
    longNote.close();
    assertThat(budget.inUseBytes()).isZero();
  }

  @Test
  void waitingBodiesAreAdmittedInArrivalOrderAndALaterSmallerOneDoesNotOvertake() throws Exception {
    UploadBudget budget = new UploadBudget(30 * MB, MB);
    UploadBudget.Admission held = admitted(budget, 25 * MB, Duration.ZERO);
    CompletableFuture<UploadBudget.@Nullable Admission> big = admitLater(budget, 20 * MB);
    Await.until(() -> budget.waiting() == 1, () -> budget.waiting() + " waiting");
    CompletableFuture<UploadBudget.@Nullable Admission> later = admitLater(budget, 4 * MB);
    Await.until(() -> budget.waiting() == 2, () -> budget.waiting() + " waiting");

    assertThat(later).as("4 MB would fit, but 20 MB waits ahead of it").isNotDone();
    held.close();

    UploadBudget.Admission first = Objects.requireNonNull(big.get(10, TimeUnit.SECONDS));
    UploadBudget.Admission second = Objects.requireNonNull(later.get(10, TimeUnit.SECONDS));
    assertThat(budget.inUseBytes()).isEqualTo(24 * MB);
    first.close();
    second.close();
    assertThat(budget.inUseBytes()).isZero();
    assertThat(budget.waiting()).isZero();
  }

  @Test
  void aWaiterThatGivesUpLeavesTheQueueAndLetsTheOneBehindItIn() throws Exception {
    UploadBudget budget = new UploadBudget(30 * MB, MB);
    UploadBudget.Admission held = admitted(budget, 20 * MB, Duration.ZERO);
    // Ahead in the queue, too large to fit beside what is held; its request ends (interrupted)
    // while it waits.
    CompletableFuture<UploadBudget.@Nullable Admission> impatient = new CompletableFuture<>();
    Thread waiting =
        Thread.ofVirtual().start(() -> impatient.complete(budget.admit(25 * MB, PATIENT)));
    Await.until(() -> budget.waiting() == 1, () -> budget.waiting() + " waiting");
    CompletableFuture<UploadBudget.@Nullable Admission> behind = admitLater(budget, 5 * MB);
    Await.until(() -> budget.waiting() == 2, () -> budget.waiting() + " waiting");

    waiting.interrupt();

    assertThat(impatient.get(10, TimeUnit.SECONDS)).isNull();
    UploadBudget.Admission admitted = Objects.requireNonNull(behind.get(10, TimeUnit.SECONDS));
    assertThat(budget.inUseBytes()).isEqualTo(25 * MB);
    assertThat(budget.waiting()).isZero();
    admitted.close();
    held.close();
    assertThat(budget.inUseBytes()).isZero();
  }

  @Test
  void closingAnAdmissionTwiceGivesItsBytesBackOnce() {
    UploadBudget budget = new UploadBudget(30 * MB, MB);
    UploadBudget.Admission first = admitted(budget, 10 * MB, Duration.ZERO);
    UploadBudget.Admission second = admitted(budget, 10 * MB, Duration.ZERO);

    first.close();
    first.close();

    assertThat(budget.inUseBytes()).isEqualTo(10 * MB);
    second.close();
    assertThat(budget.inUseBytes()).isZero();
  }

  @Test
  void manyThreadsAdmittingAndReleasingAtOnceNeverExceedTheBudgetAndEndAtZero() throws Exception {
    UploadBudget budget = new UploadBudget(50 * MB, MB);
    List<CompletableFuture<Long>> workers = new ArrayList<>();
    java.util.concurrent.atomic.AtomicLong largeInFlight =
        new java.util.concurrent.atomic.AtomicLong();
    java.util.concurrent.atomic.AtomicLong peak = new java.util.concurrent.atomic.AtomicLong();
    for (int i = 0; i < 64; i++) {
      long size = (i % 4 + 1) * 10 * MB;
      workers.add(
          CompletableFuture.supplyAsync(
              () -> {
                long admitted = 0;
                for (int round = 0; round < 50; round++) {
                  UploadBudget.Admission admission = budget.admit(size, PATIENT);
                  if (admission == null) {
                    continue;
                  }
                  try (admission) {
                    peak.accumulateAndGet(largeInFlight.addAndGet(size), Math::max);
                    Thread.yield();
                    largeInFlight.addAndGet(-size);
                    admitted++;
                  }
                }
                return admitted;
              },
              threads));
    }
    long total = 0;
    for (CompletableFuture<Long> worker : workers) {
      total += worker.get(60, TimeUnit.SECONDS);
    }

    assertThat(total).isEqualTo(64 * 50);
    assertThat(peak.get()).isLessThanOrEqualTo(50 * MB);
    assertThat(budget.inUseBytes()).isZero();
    assertThat(budget.waiting()).isZero();
  }

  private static UploadBudget.Admission admitted(UploadBudget budget, long bytes, Duration wait) {
    UploadBudget.Admission admission = budget.admit(bytes, wait);
    assertThat(admission).as("%d bytes admitted", bytes).isNotNull();
    return Objects.requireNonNull(admission);
  }

  private CompletableFuture<UploadBudget.@Nullable Admission> admitLater(
      UploadBudget budget, long bytes) {
    return CompletableFuture.supplyAsync(() -> budget.admit(bytes, PATIENT), threads);
  }
}
