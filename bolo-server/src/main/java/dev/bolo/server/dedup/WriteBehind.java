package dev.bolo.server.dedup;

import dev.bolo.server.work.KeptTranscript;
import dev.bolo.server.work.WorkKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Results that the shared store could not take while it was unreachable, waiting to be written to
 * it. Bounded by count and by bytes: past either bound the oldest result is dropped (logged; it is
 * still replayed by the instance that made it). A result older than the replay TTL is dropped too,
 * since it would have expired in the shared store already. Thread safe.
 */
final class WriteBehind {

  private static final Logger log = LoggerFactory.getLogger(WriteBehind.class);

  /** Far more notes than an instance finishes during any outage worth riding out. */
  static final int MAX_ENTRIES = 10_000;

  /** One result waiting for the shared store, with the claim token of the work that made it. */
  record Pending(WorkKey key, Claim.Owned owner, KeptTranscript transcript, long keptAtNanos) {
    Pending {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(owner, "owner");
      Objects.requireNonNull(transcript, "transcript");
    }
  }

  private final int maxEntries;
  private final long maxBytes;
  private final Duration ttl;
  private final LongSupplier ticker;
  private final LinkedHashMap<WorkKey, Pending> pending = new LinkedHashMap<>();
  private long bytes;

  WriteBehind(int maxEntries, long maxBytes, Duration ttl, LongSupplier ticker) {
    if (maxEntries < 1) {
      throw new IllegalArgumentException("maxEntries must be >= 1: " + maxEntries);
    }
    if (maxBytes < 1) {
      throw new IllegalArgumentException("maxBytes must be >= 1: " + maxBytes);
    }
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
    this.ttl = Objects.requireNonNull(ttl, "ttl");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
  }

  /** Keeps a result for the shared store; a later result for the same key replaces it. */
  synchronized void add(WorkKey key, Claim.Owned owner, KeptTranscript transcript) {
    putBack(new Pending(key, owner, transcript, ticker.getAsLong()));
  }

  /** Keeps a result again that could not be written after {@link #drain}. */
  synchronized void putBack(Pending entry) {
    Pending replaced = pending.put(entry.key(), entry);
    if (replaced != null) {
      bytes -= replaced.transcript().weight();
    }
    bytes += entry.transcript().weight();
    Iterator<Map.Entry<WorkKey, Pending>> oldest = pending.entrySet().iterator();
    while ((pending.size() > maxEntries || bytes > maxBytes) && oldest.hasNext()) {
      Pending dropped = oldest.next().getValue();
      oldest.remove();
      bytes -= dropped.transcript().weight();
      log.warn(
          "write-behind full: result for {} is kept on this instance only",
          dropped.key().asString());
    }
  }

  /** Takes every result still worth writing, oldest first. */
  synchronized List<Pending> drain() {
    long now = ticker.getAsLong();
    List<Pending> due = new ArrayList<>();
    for (Pending entry : pending.values()) {
      if (now - entry.keptAtNanos() < ttl.toNanos()) {
        due.add(entry);
      }
    }
    pending.clear();
    bytes = 0;
    return due;
  }

  synchronized int size() {
    return pending.size();
  }
}
