package dev.bolo.server.dedup;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Runs each piece of work once however many copies of it arrive: the first copy claims it and runs
 * it detached from its request, so a client that hangs up cancels nothing; later copies wait for
 * the same outcome or replay the stored transcript.
 *
 * <p>Thread safe; one instance serves the whole gateway.
 */
public final class WorkCoordinator {

  private static final Logger log = LoggerFactory.getLogger(WorkCoordinator.class);

  /**
   * How long a waiter blocks before it looks at the store again, so a lease that expired (its owner
   * died) is taken over promptly.
   */
  private static final Duration RECHECK = Duration.ofSeconds(1);

  private final DedupStore store;
  private final Executor detached;
  private final ScheduledExecutorService renewals;
  private final LongSupplier ticker;
  private final Duration lease;

  /**
   * @param store where claims and results live
   * @param detached runs the work outside the request thread (virtual threads)
   * @param renewals renews leases while work runs
   * @param ticker monotonic nanoseconds, for the waiters' deadline
   * @param lease how long a claim lives without renewal; renewed every third of it
   */
  public WorkCoordinator(
      DedupStore store,
      Executor detached,
      ScheduledExecutorService renewals,
      LongSupplier ticker,
      Duration lease) {
    this.store = Objects.requireNonNull(store, "store");
    this.detached = Objects.requireNonNull(detached, "detached");
    this.renewals = Objects.requireNonNull(renewals, "renewals");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    if (lease.toMillis() < 30) {
      throw new IllegalArgumentException("lease must be at least 30 ms: " + lease);
    }
    this.lease = lease;
  }

  /** What a request was answered with, and whether the answer came from other work. */
  public record Served(Outcome outcome, boolean replayed) {}

  /**
   * Serves one copy of the work.
   *
   * @param maxWait how long a duplicate waits for someone else's work before giving up (504)
   * @param work runs at most once among all concurrent copies; must not throw for expected failures
   * @throws InterruptedException if this request's thread is interrupted; the work goes on
   */
  public Served serve(WorkKey key, Duration maxWait, Supplier<Outcome> work)
      throws InterruptedException {
    long deadline = ticker.getAsLong() + maxWait.toNanos();
    while (true) {
      switch (store.claim(key, lease)) {
        case Claim.Completed completed -> {
          return replay(key, completed.transcript());
        }
        case Claim.Owned owned -> {
          return new Served(awaitOwn(runDetached(key, owned, work)), false);
        }
        case Claim.Busy busy -> {
          long remaining = deadline - ticker.getAsLong();
          if (remaining <= 0) {
            return new Served(
                new Outcome.Refused(
                    Problem.UPSTREAM_TIMEOUT,
                    "the same note is still being transcribed; resend later"),
                true);
          }
          Duration wait = Duration.ofNanos(Math.min(remaining, RECHECK.toNanos()));
          switch (store.await(key, wait)) {
            case Resolution.Completed done -> {
              return replay(key, done.transcript());
            }
            case Resolution.Failed failed -> {
              return new Served(failed.refusal(), true);
            }
            case Resolution.Vacant vacant -> {
              // The owner failed or vanished without a result: claim it ourselves.
            }
            case Resolution.Pending pending -> {
              // Look again: the lease may have expired while we waited.
            }
          }
        }
      }
    }
  }

  private Served replay(WorkKey key, Transcript transcript) {
    // Bug guard: a stored entry must answer the key it was stored under.
    if (!transcript.answers(key)) {
      log.error("stored transcript does not answer its key {}", key.asString());
      return new Served(
          new Outcome.Refused(
              Problem.IDEMPOTENCY_CONFLICT, "a stored result contradicts this request's key"),
          true);
    }
    return new Served(new Outcome.Success(transcript), true);
  }

  private CompletableFuture<Outcome> runDetached(
      WorkKey key, Claim.Owned owned, Supplier<Outcome> work) {
    var context = MDC.getCopyOfContextMap();
    CompletableFuture<Outcome> result = new CompletableFuture<>();
    detached.execute(
        () -> {
          if (context != null) {
            MDC.setContextMap(context);
          }
          long every = Math.max(10, lease.toMillis() / 3);
          ScheduledFuture<?> renewal =
              renewals.scheduleAtFixedRate(
                  () -> renew(key, owned), every, every, TimeUnit.MILLISECONDS);
          Outcome outcome;
          try {
            outcome = work.get();
          } catch (RuntimeException e) {
            log.error("transcription failed unexpectedly", e);
            outcome =
                new Outcome.Refused(Problem.UPSTREAM_ERROR, "internal error while transcribing");
          } finally {
            renewal.cancel(false);
          }
          try {
            finish(key, owned, outcome);
          } catch (RuntimeException e) {
            log.error("could not record the outcome for {}", key.asString(), e);
          } finally {
            result.complete(outcome);
            MDC.clear();
          }
        });
    return result;
  }

  private void renew(WorkKey key, Claim.Owned owned) {
    try {
      if (!store.renew(key, owned, lease)) {
        log.warn("lost the claim on {} while transcribing", key.asString());
      }
    } catch (RuntimeException e) {
      log.warn("could not renew the claim on {}: {}", key.asString(), e.toString());
    }
  }

  private void finish(WorkKey key, Claim.Owned owned, Outcome outcome) {
    switch (outcome) {
      case Outcome.Success success -> {
        if (!store.complete(key, owned, success.transcript())) {
          log.warn("claim on {} was lost before completion; result not stored", key.asString());
        }
      }
      case Outcome.Refused refused -> store.fail(key, owned, refused);
    }
  }

  private static Outcome awaitOwn(CompletableFuture<Outcome> own) throws InterruptedException {
    try {
      return own.get();
    } catch (ExecutionException e) {
      throw new IllegalStateException("detached work never completes exceptionally", e);
    }
  }
}
