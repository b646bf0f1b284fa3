package dev.bolo.server.dedup;

/**
 * The Lua scripts of {@link RedisDedupStore}: each one acts on one work key's entries atomically.
 *
 * <p><b>Epochs.</b> Outside a Redis Cluster, the store keeps {@code bolo:epoch}: a hash with a
 * random {@code id}, when it was {@code born} (Redis's clock) and whether it is {@code recovering}.
 * Each instance remembers the id it last saw. A Redis that lost its data (a restart without
 * persistence) has no epoch; the next claim or renewal makes a new one, and marks it recovering
 * when its caller knew an older one: the data was lost, not never there. For one lease after a
 * recovering epoch was born, a claim on a vacant key is <em>tentative</em>: its token is stored
 * with a {@code T} in front, an owner taking back the claim Redis forgot overrides it, and it
 * becomes a real claim only when the epoch is a lease old ({@link #CONFIRM}). An owner still alive
 * takes its claim back within a lease (it renews every third of one), however busy its machine, so
 * a note is not run twice because Redis restarted; no rule here depends on how fast anyone is.
 */
final class RedisScripts {

  private RedisScripts() {}

  /**
   * The epoch, kept up as described above; returns its id and how many milliseconds a claim made
   * now stays tentative (0 when none). Arguments: epoch key, the caller's known id ('' if none), a
   * new id should one be made, the lease in ms.
   */
  private static final String EPOCH =
      """
      if redis.replicate_commands then redis.replicate_commands() end
      local function epoch(key, known, fresh, lease)
        local t = redis.call('TIME')
        local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
        local e = redis.call('HMGET', key, 'id', 'born', 'recovering')
        local id, born, recovering = e[1], tonumber(e[2]), e[3] == '1'
        if not id then
          id, born, recovering = fresh, now, known ~= ''
          redis.call('HSET', key, 'id', id, 'born', born, 'recovering', recovering and '1' or '0')
        elseif not recovering and known ~= '' and known ~= id then
          recovering = true
          redis.call('HSET', key, 'recovering', '1')
        end
        local wait = 0
        -- At most a lease: a clock stepped back must not hold claims longer than that.
        if recovering then
          wait = math.min(tonumber(lease), math.max(0, born + tonumber(lease) - now))
        end
        return id, wait
      end
      """;

  /**
   * Returns the epoch, made first if Redis has none (a fresh Redis, or one that lost its data and
   * is met first by an instance that knows none). KEYS: epoch. ARGV: known epoch, a new epoch id.
   */
  static final String EPOCH_ID =
      EPOCH
          + """
          local id = epoch(KEYS[1], ARGV[1], ARGV[2], 0)
          return id
          """;

  /**
   * Returns {@code "D" + transcript} when done; else {@code "O" + epoch} after taking the claim
   * (and forgetting an earlier failure); {@code "T" + ms + ":" + epoch} after taking it tentatively
   * for that long; else {@code "B" + epoch}, followed by a space and the owner's span when the
   * owner left one. KEYS: claim, done, failed, owner, and the epoch outside a cluster. ARGV: token,
   * lease ms, known epoch, the claimant's span ('' for none). A new epoch is named by the token
   * (random already). The owner's span lives as long as the claim: an owner of an earlier version
   * leaves none, and a waiter of an earlier version never reads it.
   */
  static final String CLAIM =
      EPOCH
          + """
          local done = redis.call('GET', KEYS[2])
          if done then return 'D' .. done end
          local id, wait = '', 0
          if KEYS[5] then id, wait = epoch(KEYS[5], ARGV[3], ARGV[1], ARGV[2]) end
          local function owned(ms)
            redis.call('DEL', KEYS[3])
            if ARGV[4] ~= '' then
              redis.call('SET', KEYS[4], ARGV[4], 'PX', ms)
            else
              redis.call('DEL', KEYS[4])
            end
          end
          local function busy()
            local span = redis.call('GET', KEYS[4])
            if span then return 'B' .. id .. ' ' .. span end
            return 'B' .. id
          end
          if wait > 0 then
            local ms = tonumber(ARGV[2]) + wait
            if redis.call('SET', KEYS[1], 'T' .. ARGV[1], 'NX', 'PX', ms) then
              owned(ms)
              return 'T' .. wait .. ':' .. id
            end
            return busy()
          end
          if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
            owned(ARGV[2])
            return 'O' .. id
          end
          return busy()
          """;

  /**
   * Makes a tentative claim real if it is still the caller's: {@code "O"}; {@code "D" + transcript}
   * when the work was done meanwhile; {@code "B"} when an owner took it back or it ended. KEYS:
   * claim, done. ARGV: token, lease ms.
   */
  static final String CONFIRM =
      """
      local done = redis.call('GET', KEYS[2])
      if done then return 'D' .. done end
      if redis.call('GET', KEYS[1]) == 'T' .. ARGV[1] then
        redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
        return 'O'
      end
      return 'B'
      """;

  /**
   * Extends the caller's claim, and its span with it; takes it again when Redis forgot it (a
   * restart without persistence) or holds it only tentatively for a claim made since, and no result
   * is stored (the span of the claimant it takes the key from is removed, its own is not known
   * here); refuses when another owner holds it. KEYS: claim, done, owner, and the epoch outside a
   * cluster. ARGV: token, lease ms, known epoch (a new epoch is named by the token).
   */
  static final String RENEW =
      EPOCH
          + """
          local holder = redis.call('GET', KEYS[1])
          if holder == ARGV[1] then
            redis.call('PEXPIRE', KEYS[1], ARGV[2])
            redis.call('PEXPIRE', KEYS[3], ARGV[2])
            return 1
          end
          if holder and string.sub(holder, 1, 1) ~= 'T' then return 0 end
          if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
          if KEYS[4] then epoch(KEYS[4], ARGV[3], ARGV[1], ARGV[2]) end
          redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
          -- A span left by the claimant it took the key from names work that will not run.
          redis.call('DEL', KEYS[3])
          return 1
          """;

  /**
   * Stores the result unless one is stored already or another owner holds the claim; a claim Redis
   * forgot, or holds only tentatively, does not stop the owner. KEYS: claim, done, owner. ARGV:
   * token, transcript, ttl ms, channel, message.
   */
  static final String COMPLETE =
      """
      if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
      local holder = redis.call('GET', KEYS[1])
      if holder and holder ~= ARGV[1] and string.sub(holder, 1, 1) ~= 'T' then return 0 end
      redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
      redis.call('DEL', KEYS[1], KEYS[3])
      redis.call('PUBLISH', ARGV[4], ARGV[5])
      return 1
      """;

  /**
   * Ends the work with a failure unless another owner holds the claim (a tentative one does not
   * count). KEYS: claim, failed, owner. ARGV: token, refusal, memory ms, channel, message.
   */
  static final String FAIL =
      """
      local holder = redis.call('GET', KEYS[1])
      if holder and holder ~= ARGV[1] and string.sub(holder, 1, 1) ~= 'T' then return 0 end
      redis.call('DEL', KEYS[1], KEYS[3])
      redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
      redis.call('PUBLISH', ARGV[4], ARGV[5])
      return 1
      """;

  /** Returns the stored work key if the idempotency key is bound, else binds it and returns nil. */
  static final String BIND =
      """
      local bound = redis.call('GET', KEYS[1])
      if bound then return bound end
      redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
      return false
      """;
}
