package dev.bolo.server.dedup;

import dev.bolo.server.dedup.WorkCoordinator.Served;
import dev.bolo.server.time.Sleeper;
import dev.bolo.server.work.KeptTranscript;
import dev.bolo.server.work.Problem;
import dev.bolo.server.work.Replay;
import dev.bolo.server.work.WorkKey;
import dev.bolo.server.work.WorkResult;
import io.opentelemetry.api.trace.SpanContext;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the outcome of a key through the store: replays a stored transcript, runs the work itself
 * when it wins the claim (renewing the lease meanwhile) and records how it ended, or waits for
 * another instance's claim to end ({@link ClaimWait}) and claims afresh when it lapses.
 *
 * <p>Thread safe: each call is one resolution, on its own detached thread.
 */
final class KeyResolver {

  private static final Logger log = LoggerFactory.getLogger(KeyResolver.class);

  private final DedupStore store;
  private final LongSupplier ticker;
  private final Sleeper sleeper;
  private final Duration lease;
  private final LeaseRenewals renewals;

  /** The resolutions on this instance that wait for another instance's work now. */
  private final AtomicInteger waitingElsewhere = new AtomicInteger();

  KeyResolver(
      DedupStore store,
      LongSupplier ticker,
      Sleeper sleeper,
      Duration lease,
      LeaseRenewals renewals) {
    this.store = store;
    this.ticker = ticker;
    this.sleeper = sleeper;
    this.lease = lease;
    this.renewals = renewals;
  }

  /** How many resolutions wait for work that another instance claimed now. */
  int waitingElsewhere() {
    return waitingElsewhere.get();
  }

  /**
   * Finds the outcome of the key: a stored one, this instance's run, or another instance's.
   *
   * @param deadline the ticker's nanoseconds after which nobody waits for the outcome any more
   * @param ownerSpan told, each time the store names who holds the key, the span of the owner on
   *     another instance; an invalid one when the work is this instance's or its owner unknown
   */
  Served resolve(
      WorkKey key, long deadline, Supplier<WorkResult> work, Consumer<SpanContext> ownerSpan)
      throws InterruptedException {
    ClaimWait elsewhere = new ClaimWait(store, ticker, sleeper, lease, waitingElsewhere);
    try {
      while (true) {
        long generation = store.generation();
        switch (store.claim(key, lease)) {
          case Claim.Completed completed -> {
            return replay(key, completed.transcript(), Replay.CACHED);
          }
          case Claim.Owned owned -> {
            elsewhere.stopWaiting();
            ownerSpan.accept(SpanContext.getInvalid());
            return new Served(runOwned(key, owned, work), Replay.NONE);
          }
          case Claim.Busy busy -> {
            elsewhere.alive(generation);
            ownerSpan.accept(busy.owner());
          }
        }
        switch (elsewhere.until(key, deadline)) {
          case Resolution.Completed done -> {
            return replay(key, done.transcript(), Replay.JOINED);
          }
          case Resolution.Failed failed -> {
            return new Served(failed.refusal(), Replay.JOINED);
          }
          case Resolution.Pending pending -> {
            return WorkCoordinator.stillRunning();
          }
          // Nobody holds the key any more: claim it afresh.
          case Resolution.Vacant vacant -> {}
        }
      }
    } finally {
      elsewhere.stopWaiting();
    }
  }

  private static Served replay(WorkKey key, KeptTranscript transcript, Replay replay) {
    // Bug guard: a stored entry must answer the key it was stored under.
    if (!transcript.answers(key)) {
      log.error("stored transcript does not answer its key {}", key.asString());
      return new Served(
          new WorkResult.Refused(
              Problem.IDEMPOTENCY_CONFLICT, "a stored result contradicts this request's key"),
          replay);
    }
    return new Served(new WorkResult.Success(transcript), replay);
  }

  /** Runs the work this instance owns, renewing its lease, and records how it ended. */
  private WorkResult runOwned(WorkKey key, Claim.Owned owned, Supplier<WorkResult> work) {
    LeaseRenewals.Renewal renewal = renewals.start(key, owned);
    WorkResult outcome;
    try {
      outcome = work.get();
    } catch (Throwable e) {
      // An Error too (StackOverflowError, OutOfMemoryError): every waiter still gets an answer.
      log.error("transcription failed unexpectedly", e);
      outcome = WorkCoordinator.INTERNAL_ERROR;
    } finally {
      renewal.stop();
    }
    try {
      finish(key, owned, outcome);
    } catch (Throwable e) {
      log.error("could not record the outcome for {}", key.asString(), e);
    }
    return outcome;
  }

  private void finish(WorkKey key, Claim.Owned owned, WorkResult outcome) {
    switch (outcome) {
      case WorkResult.Success success -> {
        if (!store.complete(key, owned, success.transcript())) {
          log.warn(
              "claim on {} was lost and another result is stored; this one is not", key.asString());
        }
      }
      case WorkResult.Refused refused -> store.fail(key, owned, refused);
    }
  }
}
