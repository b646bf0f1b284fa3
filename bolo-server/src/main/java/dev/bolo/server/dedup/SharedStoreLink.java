package dev.bolo.server.dedup;

import io.lettuce.core.RedisException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link FailOpenDedupStore}'s link to the shared store: the store once reached, whether it is
 * unreachable now and why, and the {@linkplain DedupStore#generation() generation}, bumped when the
 * shared store goes, when it answers again, and when a connection drops while it is healthy. Each
 * transition is logged once.
 *
 * <p>Thread safe.
 */
final class SharedStoreLink {

  private static final Logger log = LoggerFactory.getLogger(SharedStoreLink.class);

  private final Function<Runnable, DedupStore> connector;
  private final String name;
  private final AtomicLong generation = new AtomicLong();
  private final Object transitions = new Object();
  private volatile @Nullable DedupStore shared;
  private volatile @Nullable String degradedBecause;

  /**
   * @param connector opens the shared store, given a callback for dropped connections; throws
   *     {@link RedisException} while it is unreachable
   * @param name names the shared store in logs and readiness, e.g. "redis 10.0.0.5:6379"
   */
  SharedStoreLink(Function<Runnable, DedupStore> connector, String name) {
    this.connector = connector;
    this.name = name;
  }

  String name() {
    return name;
  }

  /** The shared store, if it was ever reached; it may be unreachable now. */
  @Nullable DedupStore shared() {
    return shared;
  }

  /**
   * The shared store, opened first if it was never reached.
   *
   * @throws RedisException while it is unreachable
   */
  DedupStore connect() {
    DedupStore s = shared;
    if (s == null) {
      s = connector.apply(this::connectionDropped);
      shared = s;
    }
    return s;
  }

  /** Why the shared store is unreachable, or null while it answers. */
  @Nullable String degradedBecause() {
    return degradedBecause;
  }

  boolean isDegraded() {
    return degradedBecause != null;
  }

  long generation() {
    return generation.get();
  }

  /** The shared store failed a call: it is unreachable until the probe finds it again. */
  void degrade(RedisException e) {
    String message = e.getMessage();
    degrade(message == null ? e.getClass().getSimpleName() : message);
  }

  void degrade(String because) {
    synchronized (transitions) {
      // Already degraded: nothing was read from the shared store since (only the probe tries it),
      // so nothing new may be forgotten. Bumping on every failed probe would make every new copy
      // wait out the settling time and every owner renew, five times a second.
      if (degradedBecause != null) {
        return;
      }
      // Degraded first: a caller that sees the new generation then finds every call local.
      degradedBecause = because;
      generation.incrementAndGet();
    }
    log.error(
        "{} is unreachable ({}): serving from this instance's memory WITHOUT de-duplication across"
            + " instances until it answers again",
        name,
        because);
  }

  /**
   * A connection to the shared store dropped (on a Lettuce thread): messages about ends may have
   * been missed, so waiters look again. Not while degraded: nothing is read from the shared store
   * then, and {@link #recover} bumps the generation when it answers again. Lettuce may report the
   * drop after a request has already found the outage.
   */
  private void connectionDropped() {
    synchronized (transitions) {
      if (degradedBecause == null) {
        generation.incrementAndGet();
      }
    }
  }

  /** The shared store answers again. */
  void recover() {
    synchronized (transitions) {
      if (degradedBecause == null) {
        return;
      }
      degradedBecause = null;
      // Back, but possibly restarted: owners should take their claims again now.
      generation.incrementAndGet();
    }
    log.warn("{} answers again: de-duplicating across instances once more", name);
  }
}
