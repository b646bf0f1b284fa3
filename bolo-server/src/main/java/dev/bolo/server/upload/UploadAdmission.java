package dev.bolo.server.upload;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a body may be read now, decided before any of it is read, in three steps, each a reason
 * to turn it away:
 *
 * <ol>
 *   <li>its device's bodies at once ({@code maxBodiesPerDevice}): one more is turned away at once,
 *       so one token (perhaps stolen) can never hold every slot;
 *   <li>the byte budget ({@link UploadBudget}): its declared bytes wait their turn, at most {@code
 *       budgetWait};
 *   <li>an upload slot ({@code maxConcurrentUploads}): it waits at most {@link #SLOT_WAIT}.
 * </ol>
 *
 * <p>The same steps for a whole note and for an append to a resumable one. What was taken is held
 * by a {@link Ticket} and given back, in reverse order, when it is closed.
 *
 * <p>Thread safe: one admission serves every request.
 */
final class UploadAdmission {

  private static final Logger log = LoggerFactory.getLogger(UploadAdmission.class);

  /** How long a body waits for one of the {@code maxConcurrentUploads} slots. */
  static final Duration SLOT_WAIT = Duration.ofSeconds(1);

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
  private final Duration budgetWait;

  /**
   * @param maxConcurrentUploads bodies read at once
   * @param maxBodiesPerDevice bodies one device sends at once
   * @param budget the byte budget bodies are charged their declared length against
   * @param budgetWait how long a body waits for room in the budget
   */
  UploadAdmission(
      int maxConcurrentUploads, int maxBodiesPerDevice, UploadBudget budget, Duration budgetWait) {
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
    this.budgetWait = budgetWait;
  }

  /** Declared bytes of the bodies being read now (the byte budget in use). */
  long admittedBytes() {
    return budget.inUseBytes();
  }

  /** Bodies waiting for room in the byte budget now. */
  int waitingUploads() {
    return budget.waiting();
  }

  /**
   * Admits a body of {@code declaredBytes}, waiting for its turn in the budget and for a slot.
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
    UploadBudget.Admission share = budget.admit(declaredBytes, budgetWait);
    if (share == null) {
      endUpload(device);
      // Answered before any of the body is read. Resending after about as long as this one waited
      // (in whole seconds, as RFC 9110's Retry-After counts, at least one) gives the bodies ahead
      // of it time to finish.
      Duration retryAfter = Duration.ofSeconds(Math.max(1, (budgetWait.toMillis() + 999) / 1000));
      log.info(
          "body of {} bytes not admitted: {} bytes of {} in flight, {} waiting",
          declaredBytes,
          budget.inUseBytes(),
          budget.capacityBytes(),
          budget.waiting());
      return turnedAway(
          UploadResult.Reason.SERVER_BUSY,
          "the gateway is reading as many large uploads as it can take; "
              + body.again
              + " in "
              + retryAfter.toSeconds()
              + " s",
          retryAfter);
    }
    if (!acquireSlot()) {
      share.close();
      endUpload(device);
      return turnedAway(
          UploadResult.Reason.SERVER_BUSY,
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

  private boolean acquireSlot() {
    try {
      return slots.tryAcquire(SLOT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
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
