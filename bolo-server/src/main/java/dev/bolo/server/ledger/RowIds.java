package dev.bolo.server.ledger;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ids of ledger rows: UUIDs of version 7 (RFC 9562), whose leading 48 bits are the time in
 * milliseconds. Rows written together get neighbouring keys, so inserts land on the last page of
 * the primary-key index, which stays in SQLite's cache, instead of on a random page of an index
 * that outgrows the cache as the usage log grows.
 */
final class RowIds {

  private RowIds() {}

  /**
   * A new id, ordered after the ids of earlier milliseconds: {@code epochMillis} is the row's own
   * time, read from the ledger's clock.
   */
  static String next(long epochMillis) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    long high = (epochMillis << 16) | 0x7000L | (random.nextLong() & 0x0FFFL);
    long low = (random.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
    return new UUID(high, low).toString();
  }
}
