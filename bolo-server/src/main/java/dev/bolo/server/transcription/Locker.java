package dev.bolo.server.transcription;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One lock per resumable upload on this instance: one append at a time, and a termination, the
 * sweep or a client asking where to resume waits for the append in progress. A lock is waited for
 * at most a given time: an earlier append on a connection that died unnoticed holds it until its
 * body read fails. The lock of an upload nobody holds or waits for is forgotten. Thread safe.
 */
final class Locker {

  private final ConcurrentHashMap<String, Entry> locks = new ConcurrentHashMap<>();

  /** A lock and how many hold it or wait for it; {@code users} changes only inside the map. */
  private static final class Entry {
    final ReentrantLock lock = new ReentrantLock();
    int users;
  }

  /** A lock taken; closing it gives it back. */
  interface Held extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Takes the upload {@code id}'s lock, waiting at most {@code wait}.
   *
   * @return empty when another holder kept it all that time (or this thread was interrupted)
   */
  Optional<Held> tryLock(String id, Duration wait) {
    Entry entry =
        locks.compute(
            id,
            (key, known) -> {
              Entry used = Objects.requireNonNullElseGet(known, Entry::new);
              used.users++;
              return used;
            });
    boolean locked;
    try {
      locked = entry.lock.tryLock(wait.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      locked = false;
    }
    if (!locked) {
      leave(id);
      return Optional.empty();
    }
    return Optional.of(
        () -> {
          entry.lock.unlock();
          leave(id);
        });
  }

  private void leave(String id) {
    locks.computeIfPresent(id, (key, entry) -> --entry.users == 0 ? null : entry);
  }

  /** How many uploads have a lock someone holds or waits for, for tests. */
  int inUse() {
    return locks.size();
  }
}
