package dev.bolo.server.dedup;

import dev.bolo.server.work.WorkKey;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * When a {@link FailOpenDedupStore} asks the shared store and when this instance's memory: the rule
 * written once, as a ladder of reasons, and run by every store method through {@link
 * #withFallBack}.
 *
 * <p>Thread safe.
 */
final class FallBackRule {

  private final SharedStoreLink link;

  /** Keys whose work runs on the local side, so their duplicates wait there too. */
  private final Set<WorkKey> localWork = ConcurrentHashMap.newKeySet();

  FallBackRule(SharedStoreLink link) {
    this.link = link;
  }

  /** One call of a store method, on either side. */
  @FunctionalInterface
  interface StoreCall<T, X extends Exception> {
    T call() throws X;
  }

  /**
   * Runs {@code onShared} when {@link #useShared} says so; when that fails with an outage, records
   * it and runs {@code fallBack}.
   *
   * @param key the work the call is about, when a local claim on it should keep it local
   */
  <T, X extends Exception> T withFallBack(
      @Nullable WorkKey key,
      Function<DedupStore, StoreCall<T, X>> onShared,
      StoreCall<T, X> fallBack)
      throws X {
    DedupStore s = link.shared();
    if (s != null && useShared(key)) {
      try {
        return onShared.apply(s).call();
      } catch (RuntimeException e) {
        if (!isOutage(e)) {
          throw e;
        }
        link.degrade((RedisException) e);
      }
    }
    return fallBack.call();
  }

  /** The work on {@code key} was claimed locally: it ends there, and its copies wait there. */
  void runsLocally(WorkKey key) {
    localWork.add(key);
  }

  /** The local work on {@code key} ended: its next copies ask the shared store again. */
  void endedLocally(WorkKey key) {
    localWork.remove(key);
  }

  /** Whether a call should go to the shared store at all, or straight to this instance's memory. */
  private boolean useShared(@Nullable WorkKey key) {
    // Redis was never reached since start: there is nothing to ask.
    if (link.shared() == null) {
      return false;
    }
    // Redis is known to be down: do not make every upload wait a command timeout to learn it
    // again; the probe notices when it is back.
    if (link.isDegraded()) {
      return false;
    }
    // Work claimed here during an outage ends here, so its copies wait where it runs.
    if (key != null && localWork.contains(key)) {
      return false;
    }
    return true;
  }

  /** Whether a failed shared call means "fall back"; if not, the exception is the caller's. */
  private static boolean isOutage(RuntimeException e) {
    // An interrupted caller is not a sign of a dead Redis.
    if (e instanceof RedisCommandInterruptedException) {
      return false;
    }
    // Timeouts, refused or dropped connections, a Redis still loading: it cannot serve now.
    if (e instanceof RedisException) {
      return true;
    }
    // Anything else is a bug here, not an outage: let it surface.
    return false;
  }
}
