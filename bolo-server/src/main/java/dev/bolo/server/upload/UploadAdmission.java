package dev.bolo.server.upload;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a body may be read now, decided before any of it is read: the body rungs of the gateway's
 * admission ladder ({@code http.AdmissionLadder} lists every rung, with its refusal), in order,
 * each a reason to turn it away:
 *
 * <ol>
 *   <li>its device's bodies at once ({@code BOLO_MAX_BODIES_PER_DEVICE}): one more is turned away
 *       at once ({@link UploadResult.Reason#DEVICE_BUSY}), so one token (perhaps stolen) can never
 *       hold every slot;
 *   <li>the byte budget ({@link UploadBudget}, {@code BOLO_UPLOAD_BUDGET_BYTES}): its declared
 *       bytes wait their turn ({@link UploadResult.Reason#BUDGET_FULL});
 *   <li>an upload slot ({@code BOLO_MAX_CONCURRENT_UPLOADS}): it waits for one ({@link
 *       UploadResult.Reason#NO_SLOT}).
 * </ol>
 *
 * <p>The two waits share one deadline, {@code queueWait} ({@code BOLO_UPLOAD_QUEUE_WAIT}) from the
 * moment the body asks, read on the injected ticker: a body waits its turn to be read at most that
 * long in all, however the wait falls between the budget and the slots.
 *
 * <p>The same steps for a whole note and for an append to a resumable one. What was taken is held
 * by a {@link Ticket} and given back, in reverse order, when it is closed.
 *
 * <p>Thread safe: one admission serves every request.
 */
final class UploadAdmission {

  private static final Logger log = LoggerFactory.getLogger(UploadAdmission.class);

  /** What a body is, for the words of its refusal: a whole note is resent, an append resumed. */
  enum Body {
    NOTE("notes", "resend"),
    APPEND("bodies", "resume");

    private final String plural;
    private final String again;

    Body(String plural, String again) {
      this.plural = plural;
      this.again = again;
    }
  }

  /** The answer of {@link #admit}. */
  sealed interface Decision {
    /** The body may be read; close the ticket once it has been, on every path. */
    record Admitted(Ticket ticket) implements Decision {}

    /** The body must not be read: why, and when a resend may succeed where that is known. */
    record TurnedAway(UploadResult.Invalid why) implements Decision {}
  }

  private final Semaphore slots;
  private final int maxBodiesPerDevice;
  private final ConcurrentHashMap<String, Integer> uploadsByDevice = new ConcurrentHashMap<>();
  private final UploadBudget budget;
  private final Duration queueWait;
  private final LongSupplier ticker;

  /**
   * @param maxConcurrentUploads bodies read at once
   * @param maxBodiesPerDevice bodies one device sends at once
   * @param budget the byte budget bodies are charged their declared length against
   * @param queueWait how long a body waits its turn in all: for room in the budget, then a slot
   * @param ticker monotonic nanoseconds the wait's deadline is read on
   */
  UploadAdmission(
      int maxConcurrentUploads,
      int maxBodiesPerDevice,
      UploadBudget budget,
      Duration queueWait,
      LongSupplier ticker) {
    if (maxConcurrentUploads <= 0 || maxBodiesPerDevice <= 0) {
      throw new IllegalArgumentException(
          "maxConcurrentUploads and maxBodiesPerDevice must be positive: "
              + maxConcurrentUploads
              + ", "
              + maxBodiesPerDevice);
    }
    this.slots = new Semaphore(maxConcurrentUploads);
    this.maxBodiesPerDevice = maxBodiesPerDevice;
    this.budget = budget;
    this.queueWait = queueWait;
    this.ticker = Objects.requireNonNull(ticker, "ticker");
  }

  /** Declared bytes of the bodies being read now (the byte budget in use). */
  long admittedBytes() {
    return budget.inUseBytes();
  }

  /** Bodies waiting for room in the byte budget now. */
  int waitingUploads() {
    return budget.waiting();
  }

  /** Bodies waiting for an upload slot now. */
  int waitingForSlot() {
    return slots.getQueueLength();
  }

  /**
   * Admits a body of {@code declaredBytes}, waiting for its turn in the budget and for a slot, at
   * most {@code queueWait} in all.
   *
   * @param device the device sending it, or null for a body no device limit applies to
   */
  Decision admit(@Nullable String device, long declaredBytes, Body body) {
    if (device != null && !startUpload(device)) {
      return turnedAway(
          UploadResult.Reason.DEVICE_BUSY,
          "this device is already sending "
              + maxBodiesPerDevice
              + " "
              + body.plural
              + " at once; "
              + body.again
              + " when one of them has arrived",
          null);
    }
    long asked = ticker.getAsLong();
    UploadBudget.Admission share = budget.admit(declaredBytes, queueWait);
    if (share == null) {
      endUpload(device);
      // Answered before any of the body is read. Resending after about as long as this one waited
      // (in whole seconds, as RFC 9110's Retry-After counts, at least one) gives the bodies ahead
      // of it time to finish.
      Duration retryAfter = Duration.ofSeconds(Math.max(1, (queueWait.toMillis() + 999) / 1000));
      log.info(
          "body of {} bytes not admitted: {} bytes of {} in flight, {} waiting",
          declaredBytes,
          budget.inUseBytes(),
          budget.capacityBytes(),
          budget.waiting());
      return turnedAway(
          UploadResult.Reason.BUDGET_FULL,
          "the gateway is reading as many large uploads as it can take; "
              + body.again
              + " in "
              + retryAfter.toSeconds()
              + " s",
          retryAfter);
    }
    if (!acquireSlot(queueWait.toNanos() - (ticker.getAsLong() - asked))) {
      share.close();
      endUpload(device);
      return turnedAway(
          UploadResult.Reason.NO_SLOT,
          "too many uploads at once; " + body.again + " shortly",
          null);
    }
    return new Decision.Admitted(new Ticket(device, share));
  }

  private static Decision turnedAway(
      UploadResult.Reason reason, String message, @Nullable Duration retryAfter) {
    return new Decision.TurnedAway(new UploadResult.Invalid(reason, message, retryAfter));
  }

  private boolean startUpload(String device) {
    boolean[] started = {false};
    uploadsByDevice.compute(
        device,
        (name, count) -> {
          int now = count == null ? 0 : count;
          if (now >= maxBodiesPerDevice) {
            return count;
          }
          started[0] = true;
          return now + 1;
        });
    return started[0];
  }

  private void endUpload(@Nullable String device) {
    if (device != null) {
      uploadsByDevice.computeIfPresent(device, (name, count) -> count <= 1 ? null : count - 1);
    }
  }

  /** Takes a slot, waiting at most {@code leftNanos} (none when nothing is left of the wait). */
  private boolean acquireSlot(long leftNanos) {
    try {
      return slots.tryAcquire(Math.max(0, leftNanos), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * What one admitted body holds: a slot, its share of the byte budget, its place among its
   * device's bodies. Closing gives them back, once. Not thread safe: the thread reading the body
   * closes it.
   */
  final class Ticket implements AutoCloseable {
    private final @Nullable String device;
    private final UploadBudget.Admission share;
    private boolean closed;

    private Ticket(@Nullable String device, UploadBudget.Admission share) {
      this.device = device;
      this.share = share;
    }

    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      slots.release();
      share.close();
      endUpload(device);
    }
  }
}
