package dev.bolo.client;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The single source of truth for "this note was cancelled". Setting it runs every registered action
 * once: aborting the call in flight, ending a pause at once. Thread-safe.
 */
final class CancelFlag {

  private boolean cancelled;
  private @Nullable List<Runnable> onCancel = new ArrayList<>();

  /** Cancels the note; true if this call did it, false if it was cancelled already. */
  boolean cancel() {
    List<Runnable> actions;
    synchronized (this) {
      if (cancelled) {
        return false;
      }
      cancelled = true;
      actions = onCancel;
      onCancel = null;
    }
    // Run outside the lock: an action may end the note and tell listeners.
    if (actions != null) {
      actions.forEach(Runnable::run);
    }
    return true;
  }

  synchronized boolean isCancelled() {
    return cancelled;
  }

  /**
   * Runs {@code action} when the note is cancelled, or at once if it already is. The returned
   * runnable forgets the action (once it is no longer needed, such as when a call has ended).
   */
  Runnable onCancel(Runnable action) {
    synchronized (this) {
      if (!cancelled) {
        List<Runnable> actions = onCancel;
        if (actions != null) {
          actions.add(action);
        }
        return () -> forget(action);
      }
    }
    action.run();
    return () -> {};
  }

  private synchronized void forget(Runnable action) {
    if (onCancel != null) {
      onCancel.remove(action);
    }
  }
}
