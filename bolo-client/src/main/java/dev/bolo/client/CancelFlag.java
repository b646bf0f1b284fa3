package dev.bolo.client;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import okhttp3.Call;
import org.jspecify.annotations.Nullable;

/**
 * The single source of truth for "this note was cancelled". Setting it wakes a pause at once and
 * cancels the call in flight, if any. Thread-safe.
 */
final class CancelFlag {

  private final AtomicBoolean cancelled = new AtomicBoolean();
  private final CountDownLatch wakeUp = new CountDownLatch(1);
  private final AtomicReference<@Nullable Call> inFlight = new AtomicReference<>();

  /** Cancels the note; true if this call did it, false if it was cancelled already. */
  boolean cancel() {
    if (!cancelled.compareAndSet(false, true)) {
      return false;
    }
    wakeUp.countDown();
    Call call = inFlight.get();
    if (call != null) {
      call.cancel();
    }
    return true;
  }

  boolean isCancelled() {
    return cancelled.get();
  }

  /** Released when the note is cancelled; a {@link Sleeper} waits on it. */
  CountDownLatch wakeUp() {
    return wakeUp;
  }

  /** Makes {@code call} the one a cancel aborts; aborts it at once if already cancelled. */
  void track(Call call) {
    inFlight.set(call);
    // A cancel between the caller's check and set() above saw no call: catch it here.
    if (cancelled.get()) {
      call.cancel();
    }
  }

  void untrack(Call call) {
    inFlight.compareAndSet(call, null);
  }
}
