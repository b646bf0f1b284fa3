package dev.bolo.server.dedup;

import dev.bolo.server.time.Sleeper;
import dev.bolo.server.work.Problem;
import dev.bolo.server.work.Replay;
import dev.bolo.server.work.WorkKey;
import dev.bolo.server.work.WorkResult;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Runs each piece of work once however many copies of it arrive.
 *
 * <p>Copies on this instance always meet in an in-flight map, whatever the shared store does: the
 * first copy starts one detached <em>resolution</em> of the key and every copy waits for it with
 * its own deadline. The resolution ({@link KeyResolver}) asks the store: it replays a stored
 * transcript, runs the work itself when it wins the claim ({@link LeaseRenewals} renew the lease
 * meanwhile), or waits for another instance's claim to end ({@link ClaimWait}). A client that hangs
 * up cancels nothing.
 *
 * <p>A claim seen on another instance is trusted for a whole lease after the store loses sight of
 * it (Redis restarted or unreachable, see {@link DedupStore#generation()}): the resolution keeps
 * polling until that claim would have expired before it claims the key afresh, so an outage shorter
 * than a lease does not start a second provider call; owners take back what a restarted Redis
 * forgot at once ({@link GenerationWatch}), and win over claims made meanwhile ({@link
 * RedisScripts}).
 *
 * <p>Thread safe; one instance serves the whole gateway.
 */
public final class WorkCoordinator {

  private static final Logger log = LoggerFactory.getLogger(WorkCoordinator.class);

  /**
   * What everyone waiting on work that threw is told (an Error too: a full heap, a deep recursion):
   * the gateway's fault, a resend may succeed, and nothing of the exception. It is logged once.
   */
  static final WorkResult.Refused INTERNAL_ERROR =
      new WorkResult.Refused(Problem.INTERNAL, "internal error; the note was not transcribed");

  /** Where answers are delivered, one virtual thread each. */
  private static final ThreadFactory ANSWERS = Thread.ofVirtual().name("bolo-answer").factory();

  private final Executor detached;
  private final LongSupplier ticker;
  private final KeyResolver resolver;
  private final Map<WorkKey, InFlight> inFlight = new ConcurrentHashMap<>();

  /**
   * One resolution on this instance, how many copies wait for it, and the stop of its work: set
   * once every copy withdrew, after which a new copy starts a resolution of its own.
   *
   * @param starter the span of the copy that started the resolution (invalid when untraced)
   * @param owner the span of the copy whose work it is, which every other copy links to: the
   *     starter's, or the owner's on another instance once the store names it
   */
  private record InFlight(
      CompletableFuture<Served> outcome,
      AtomicInteger copies,
      WorkStop stop,
      SpanContext starter,
      AtomicReference<SpanContext> owner) {}

  /** What a copy that withdrew is answered; never shown to a client. */
  static final Served WITHDRAWN =
      new Served(
          new WorkResult.Refused(Problem.UPSTREAM_UNAVAILABLE, "the wait was withdrawn"),
          Replay.NONE);

  /**
   * @param store where claims and results live
   * @param detached runs work, resolutions and lease renewals outside the request thread (virtual
   *     threads: a renewal that blocks on a slow store delays no other)
   * @param renewals only times the renewals; never blocks
   * @param ticker monotonic nanoseconds, for the waiters' deadline and the lease a lost claim is
   *     trusted for
   * @param sleeper the pause between looks for a claim the store lost sight of
   * @param lease how long a claim lives without renewal; renewed every third of it
   */
  public WorkCoordinator(
      DedupStore store,
      Executor detached,
      ScheduledExecutorService renewals,
      LongSupplier ticker,
      Sleeper sleeper,
      Duration lease) {
    Objects.requireNonNull(store, "store");
    this.detached = Objects.requireNonNull(detached, "detached");
    Objects.requireNonNull(renewals, "renewals");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    if (lease.toMillis() < 30) {
      throw new IllegalArgumentException("lease must be at least 30 ms: " + lease);
    }
    GenerationWatch watch = new GenerationWatch(store);
    this.resolver =
        new KeyResolver(
            store,
            ticker,
            Objects.requireNonNull(sleeper, "sleeper"),
            lease,
            new LeaseRenewals(store, detached, renewals, ticker, lease, watch));
  }

  /**
   * What a request was answered with, and where the answer came from.
   *
   * @param replay whether the answer came from this request's own work, from work that was in
   *     flight when it arrived, or from a stored result
   */
  public record Served(WorkResult outcome, Replay replay) {

    /** An answer from this request's own work ({@code false}) or from other work ({@code true}). */
    public Served(WorkResult outcome, boolean replayed) {
      this(outcome, replayed ? Replay.JOINED : Replay.NONE);
    }

    /** Whether the answer came from other work than this request's own. */
    public boolean replayed() {
      return replay != Replay.NONE;
    }
  }

  /**
   * Serves one copy of the work, holding the caller's thread until its outcome.
   *
   * @param maxWait how long this copy waits for the outcome before giving up (504); the work goes
   *     on
   * @param work runs at most once among all concurrent copies on this instance (and, while the
   *     store is shared and reachable, among all instances); may throw anything, which its waiters
   *     receive as a 502
   * @throws InterruptedException if this request's thread is interrupted; the work goes on
   */
  public Served serve(WorkKey key, Duration maxWait, Supplier<WorkResult> work)
      throws InterruptedException {
    try {
      return serve(key, maxWait, stop -> work.get(), new CompletableFuture<>(), Runnable::run)
          .get();
    } catch (ExecutionException e) {
      log.error("resolution ended exceptionally", e.getCause());
      return internalError();
    }
  }

  /**
   * Serves one copy of the work like {@link #serve(WorkKey, Duration, Supplier)} without holding
   * the caller's thread: a request waiting for a slow provider keeps no thread's stack meanwhile.
   * The outcome completes the future on a virtual thread of its own, never on the work's thread or
   * a timer's, with the caller's logging context; stages added to it before then run there too. It
   * never completes exceptionally.
   */
  public CompletableFuture<Served> serveLater(
      WorkKey key, Duration maxWait, Supplier<WorkResult> work) {
    return serveLater(key, maxWait, stop -> work.get(), new CompletableFuture<>());
  }

  /**
   * Serves one copy like {@link #serveLater(WorkKey, Duration, Supplier)}, a copy whose waiter may
   * withdraw (a job cancelled): once {@code withdrawn} completes, the copy is answered {@link
   * #WITHDRAWN} at once and, when no other copy on this instance waits for the work any more, the
   * work is stopped through the {@link WorkStop} it was given (see {@link WorkStop#during}).
   *
   * @param work given the stop of the run it makes
   */
  public CompletableFuture<Served> serveLater(
      WorkKey key,
      Duration maxWait,
      Function<WorkStop, WorkResult> work,
      CompletableFuture<?> withdrawn) {
    return serve(
        key, maxWait, work, withdrawn, AnswerThreads.of(ANSWERS, MDC.getCopyOfContextMap()));
  }

  /** Whether {@code served} is the answer of a copy that withdrew. */
  public static boolean withdrew(Served served) {
    return served == WITHDRAWN;
  }

  private CompletableFuture<Served> serve(
      WorkKey key,
      Duration maxWait,
      Function<WorkStop, WorkResult> work,
      CompletableFuture<?> withdrawn,
      Executor answerOn) {
    long deadline = ticker.getAsLong() + maxWait.toNanos();
    Span copy = Span.current();
    SpanContext starter = copy.getSpanContext();
    InFlight started =
        new InFlight(
            new CompletableFuture<>(),
            new AtomicInteger(),
            new WorkStop(),
            starter,
            new AtomicReference<>(starter));
    InFlight joined =
        inFlight.compute(
            key,
            (k, current) -> {
              // Work every copy withdrew from is stopping: it answers no newcomer.
              InFlight use = current != null && !current.stop().stopped() ? current : started;
              use.copies().incrementAndGet();
              return use;
            });
    if (joined == started) {
      resolveDetached(key, deadline, () -> work.apply(started.stop()), started);
    }
    // Each copy waits with its own deadline on a future of its own: a copy's timeout completes
    // only its wait, never the shared outcome.
    CompletableFuture<Served> waited =
        joined
            .outcome()
            // Joining a resolution that itself found a stored result is a cache hit all the same.
            .thenApply(
                shared ->
                    joined == started || shared.replay() == Replay.CACHED
                        ? shared
                        : new Served(shared.outcome(), Replay.JOINED))
            .completeOnTimeout(
                stillRunning(), Math.max(0, deadline - ticker.getAsLong()), TimeUnit.NANOSECONDS);
    withdrawn.whenComplete((done, failure) -> waited.complete(WITHDRAWN));
    return waited
        .handle(
            (served, failure) -> {
              linkToOwner(copy, joined);
              if (served == WITHDRAWN) {
                withdraw(key, joined);
              } else {
                joined.copies().decrementAndGet();
              }
              if (failure != null) {
                log.error("resolution ended exceptionally", failure);
                return internalError();
              }
              return served;
            })
        .thenApplyAsync(served -> served, answerOn);
  }

  /**
   * Links a copy's span to the span of the copy whose work answered it, as known when its wait
   * ends: on this instance the copy that started the resolution, on another the owner the store
   * named (whatever copy on this instance asked the store). The owner's own copy links to nothing.
   */
  private static void linkToOwner(Span copy, InFlight entry) {
    SpanContext owner = entry.owner().get();
    if (owner.isValid() && !owner.equals(copy.getSpanContext())) {
      copy.addLink(owner);
    }
  }

  /**
   * Counts a withdrawn copy out of its resolution and stops the work when it was the last copy
   * waiting for it; in the map's lock, so no copy joins the work meanwhile.
   */
  private void withdraw(WorkKey key, InFlight entry) {
    AtomicBoolean counted = new AtomicBoolean();
    inFlight.computeIfPresent(
        key,
        (k, current) -> {
          if (current == entry) {
            counted.set(true);
            if (entry.copies().decrementAndGet() == 0) {
              log.info("every copy of {} withdrew: its work is stopped", key.asString());
              entry.stop().stop();
            }
          }
          return current;
        });
    if (!counted.get()) {
      // The resolution ended already: nothing left to stop.
      entry.copies().decrementAndGet();
    }
  }

  /** How many copies on this instance wait for an outcome now, over all keys (for a metric). */
  public int copiesWaiting() {
    return inFlight.values().stream().mapToInt(entry -> entry.copies().get()).sum();
  }

  /**
   * How many resolutions on this instance wait for work that another instance claimed (for a
   * metric): the notes this instance did not run because another instance runs them.
   */
  public int waitingOnOtherInstances() {
    return resolver.waitingElsewhere();
  }

  /** How many copies on this instance wait for the key's outcome now (for tests). */
  int copiesWaiting(WorkKey key) {
    InFlight current = inFlight.get(key);
    return current == null ? 0 : current.copies().get();
  }

  private void resolveDetached(
      WorkKey key, long deadline, Supplier<WorkResult> work, InFlight entry) {
    CompletableFuture<Served> result = entry.outcome();
    var context = MDC.getCopyOfContextMap();
    try {
      detached.execute(
          () -> {
            if (context != null) {
              MDC.setContextMap(context);
            }
            Served served = internalError();
            try {
              served =
                  resolver.resolve(
                      key,
                      deadline,
                      work,
                      found -> entry.owner().set(found.isValid() ? found : entry.starter()));
            } catch (InterruptedException e) {
              // Only a shutdown interrupts detached work.
              served = internalError();
            } catch (Throwable e) {
              log.error("resolving {} failed unexpectedly", key.asString(), e);
              served = internalError();
            } finally {
              // Leave the map first: a copy arriving from now on asks the store, which already
              // holds a success, and runs afresh after a failure. In a finally, so that not even an
              // Error thrown while reporting one leaves the key stuck on this instance.
              inFlight.remove(key, entry);
              result.complete(served);
              MDC.clear();
            }
          });
    } catch (RejectedExecutionException e) {
      inFlight.remove(key, entry);
      result.complete(
          new Served(
              new WorkResult.Refused(Problem.UPSTREAM_UNAVAILABLE, "the gateway is shutting down"),
              Replay.NONE));
    }
  }

  /** What a copy is told when its wait ended before the work did. */
  static Served stillRunning() {
    return new Served(
        new WorkResult.Refused(
            Problem.UPSTREAM_TIMEOUT, "the same note is still being transcribed; resend later"),
        Replay.JOINED);
  }

  private static Served internalError() {
    return new Served(INTERNAL_ERROR, Replay.NONE);
  }
}
