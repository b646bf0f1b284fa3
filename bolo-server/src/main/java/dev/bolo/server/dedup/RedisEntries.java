package dev.bolo.server.dedup;

import dev.bolo.server.work.WorkKey;

/**
 * The Redis entry names of one work key in {@link RedisDedupStore}; the hash tag keeps them in one
 * Redis Cluster slot, so one script may touch them all.
 *
 * @param claim the owner's token, expiring with its lease
 * @param done the finished transcript, for the TTL
 * @param failed the last failure, briefly
 * @param owner the owner's span ({@link OwnerSpans}), living as long as the claim
 * @param channel where the end of the work is published
 */
record RedisEntries(String claim, String done, String failed, String owner, String channel) {

  static RedisEntries of(WorkKey key) {
    String base = "bolo:{" + key.asString() + "}:";
    return new RedisEntries(
        base + "claim", base + "done", base + "failed", base + "owner", base + "end");
  }
}
