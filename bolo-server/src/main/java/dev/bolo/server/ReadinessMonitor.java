package dev.bolo.server;

import dev.bolo.server.health.Readiness;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the readiness of each component fresh by checking it in the background, so {@code /readyz}
 * answers at once from kept state even while a dependency hangs (a PostgreSQL that stopped
 * answering holds a JDBC connection attempt for the pool's whole connection timeout).
 *
 * <p>Every {@link #CHECK_EVERY} each component whose last check has ended is checked again on its
 * own virtual thread; a check still running after {@link #CHECK_TIMEOUT} marks its component {@link
 * Readiness.State#DOWN} until it answers. A dependency that goes down is therefore reported within
 * {@code CHECK_EVERY + CHECK_TIMEOUT} (3 s). Thread safe.
 */
public final class ReadinessMonitor implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ReadinessMonitor.class);

  /** How often each component is checked: the usual delay before a change shows. */
  static final Duration CHECK_EVERY = Duration.ofSeconds(1);

  /**
   * How long a check may take before its component counts as down: far above a healthy Redis PING
   * or JDBC validation on a LAN (milliseconds), far below the 30 s a hung connection attempt takes.
   */
  static final Duration CHECK_TIMEOUT = Duration.ofSeconds(2);

  private final Map<String, Check> checks = new LinkedHashMap<>();
  private final Duration timeout;
  private final LongSupplier ticker;
  private final Executor runner;
  private final ScheduledExecutorService scheduler;

  /** One component's probe and what it last said. */
  private static final class Check {
    private final String name;
    private final Supplier<Readiness> probe;
    private volatile Readiness last = Readiness.down("not checked yet");
    private volatile boolean running;
    private volatile long startedAt;

    Check(String name, Supplier<Readiness> probe) {
      this.name = name;
      this.probe = Objects.requireNonNull(probe, name);
    }
  }

  /**
   * @param probes each component's direct check, by name; may block, may hang
   * @param timeout how long a check may run before its component counts as down
   * @param ticker monotonic nanoseconds
   * @param runner runs each check (a thread per check, so one hung check delays no other)
   */
  ReadinessMonitor(
      Map<String, Supplier<Readiness>> probes,
      Duration timeout,
      LongSupplier ticker,
      Executor runner) {
    probes.forEach((name, probe) -> checks.put(name, new Check(name, probe)));
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.runner = Objects.requireNonNull(runner, "runner");
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("bolo-readiness").daemon().factory());
  }

  /**
   * Starts checking {@code probes} in the background with the production timings, and waits up to
   * one {@link #CHECK_TIMEOUT} for the first answers so a gateway that just started reports real
   * state rather than "not checked yet".
   *
   * @param ticker elapsed nanoseconds that time each check
   */
  public static ReadinessMonitor start(
      Map<String, Supplier<Readiness>> probes, LongSupplier ticker) {
    ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    ReadinessMonitor monitor = new ReadinessMonitor(probes, CHECK_TIMEOUT, ticker, threads);
    monitor.refresh();
    monitor.awaitFirstAnswers();
    long every = CHECK_EVERY.toMillis();
    monitor.scheduler.scheduleWithFixedDelay(monitor::refresh, every, every, TimeUnit.MILLISECONDS);
    return monitor;
  }

  /**
   * Starts a new check of every component whose last one has ended, and marks down every component
   * whose check has run longer than the timeout.
   */
  void refresh() {
    long now = ticker.getAsLong();
    for (Check check : checks.values()) {
      if (!check.running) {
        check.running = true;
        check.startedAt = now;
        runner.execute(() -> run(check));
      } else if (now - check.startedAt > timeout.toNanos()
          && check.last.state() != Readiness.State.DOWN) {
        check.last = Readiness.down("no answer within " + timeout.toMillis() + " ms");
      }
    }
  }

  private static void run(Check check) {
    Readiness answer;
    try {
      answer = check.probe.get();
    } catch (RuntimeException e) {
      answer = Readiness.down(e.toString());
    }
    if (!answer.equals(check.last)) {
      log.info("readiness of {}: {} ({})", check.name, answer.state(), answer.detail());
    }
    // Ended before its answer is published: whoever sees the answer can start the next check.
    check.running = false;
    check.last = answer;
  }

  /** The kept state of every component, in the order given; never blocks. */
  public Map<String, Readiness> current() {
    Map<String, Readiness> now = new LinkedHashMap<>();
    checks.forEach((name, check) -> now.put(name, check.last));
    return now;
  }

  /** A supplier of each component's kept state, for the operations endpoint. */
  public Map<String, Supplier<Readiness>> kept() {
    Map<String, Supplier<Readiness>> kept = new LinkedHashMap<>();
    checks.forEach((name, check) -> kept.put(name, () -> check.last));
    return kept;
  }

  private void awaitFirstAnswers() {
    long deadline = ticker.getAsLong() + timeout.toNanos();
    CountDownLatch never = new CountDownLatch(1);
    try {
      while (checks.values().stream().anyMatch(c -> c.running)
          && ticker.getAsLong() - deadline < 0) {
        // A short bounded pause between looks; startup only.
        never.await(10, TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    refresh();
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
    if (runner instanceof ExecutorService service) {
      service.shutdownNow();
    }
  }
}
