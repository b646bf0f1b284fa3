package dev.bolo.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.health.Readiness;
import dev.bolo.testkit.Await;
import dev.bolo.testkit.FakeTicker;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Readiness answered from kept state, refreshed by checks that may hang. */
class ReadinessMonitorTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(2);
  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
  private final FakeTicker ticker = FakeTicker.atZero();
  private final CountDownLatch unhang = new CountDownLatch(1);

  /** Checks that have ended, answer published: counted after the monitor's own work for each. */
  private final AtomicInteger checksEnded = new AtomicInteger();

  @AfterEach
  void stop() {
    unhang.countDown();
    threads.shutdownNow();
  }

  @Test
  void aCheckThatHangsMarksItsComponentDownAfterTheTimeoutWhileTheOthersStayReady()
      throws Exception {
    AtomicReference<Boolean> hang = new AtomicReference<>(false);
    ReadinessMonitor monitor =
        monitor(
            Map.of(
                "ledger",
                () -> {
                  if (hang.get()) {
                    awaitQuietly(unhang);
                  }
                  return Readiness.ok();
                },
                "engine",
                Readiness::ok));
    refreshAndSettle(monitor);
    assertThat(monitor.current().values()).allMatch(Readiness::isReady);

    hang.set(true);
    refreshAndSettle(monitor);
    // The engine's second check must have answered before the clock moves past its timeout.
    awaitChecksEnded(3);
    ticker.advance(TIMEOUT.minusMillis(1));
    monitor.refresh();
    assertThat(state(monitor, "ledger")).isEqualTo(Readiness.State.READY);

    ticker.advance(Duration.ofMillis(2));
    monitor.refresh();

    assertThat(monitor.current().get("ledger"))
        .isEqualTo(Readiness.down("no answer within 2000 ms"));
    assertThat(state(monitor, "engine")).isEqualTo(Readiness.State.READY);
  }

  @Test
  void readingTheKeptStateNeverWaitsForAHangingCheck() throws Exception {
    ReadinessMonitor monitor =
        monitor(
            Map.of(
                "store",
                () -> {
                  awaitQuietly(unhang);
                  return Readiness.ok();
                }));
    monitor.refresh();

    Readiness kept = Objects.requireNonNull(monitor.kept().get("store")).get();

    // Read while the check still hangs: waiting for it would have read its answer, READY.
    assertThat(checksEnded).as("checks that have ended").hasValue(0);
    assertThat(kept.state()).isEqualTo(Readiness.State.DOWN);
  }

  @Test
  void aDegradedComponentIsKeptAsDegradedAndACheckThatThrowsAsDown() throws Exception {
    Map<String, Supplier<Readiness>> probes = new LinkedHashMap<>();
    probes.put("store", () -> Readiness.degraded("redis unreachable; this instance only"));
    probes.put(
        "ledger",
        () -> {
          throw new IllegalStateException("pool closed");
        });
    ReadinessMonitor monitor = monitor(probes);

    refreshAndSettle(monitor);

    assertThat(monitor.current())
        .containsEntry("store", Readiness.degraded("redis unreachable; this instance only"))
        .containsEntry("ledger", Readiness.down("java.lang.IllegalStateException: pool closed"));
  }

  private static Readiness.State state(ReadinessMonitor monitor, String component) {
    return Objects.requireNonNull(monitor.current().get(component), component).state();
  }

  private ReadinessMonitor monitor(Map<String, Supplier<Readiness>> probes) {
    return new ReadinessMonitor(
        probes,
        TIMEOUT,
        ticker,
        check ->
            threads.execute(
                () -> {
                  try {
                    check.run();
                  } finally {
                    checksEnded.incrementAndGet();
                  }
                }));
  }

  private void awaitChecksEnded(int count) throws InterruptedException {
    Await.until(() -> checksEnded.get() >= count, () -> checksEnded.get() + " checks ended");
  }

  /** Starts checks and waits until every one that can answer has answered. */
  private static void refreshAndSettle(ReadinessMonitor monitor) throws InterruptedException {
    monitor.refresh();
    Await.until(
        () -> monitor.current().values().stream().noneMatch(ReadinessMonitorTest::unchecked),
        () -> "still unchecked: " + monitor.current());
  }

  private static boolean unchecked(Readiness readiness) {
    return readiness.detail().equals("not checked yet");
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
