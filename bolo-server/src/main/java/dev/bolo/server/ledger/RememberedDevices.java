package dev.bolo.server.ledger;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.CacheLoader;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Which device a token belongs to and each device's limit, answered from memory for at most {@link
 * #REMEMBERED} (one indexed lookup by token hash when not), so a revocation or a quota change made
 * by another process holds within a second, and one made through this ledger at once ({@link
 * #forget}). Tokens nobody owns are remembered apart, in a small memory of their own ({@link
 * #MAX_UNKNOWN_TOKENS}): however many of them arrive, they never push a device's token out of
 * memory and its requests into the database. Thread safe.
 */
final class RememberedDevices {

  /** How long an answer about a token or a device's limit is reused from memory. */
  static final Duration REMEMBERED = Duration.ofSeconds(1);

  /** Devices' tokens and limits kept in memory, each for a second: more than ever send at once. */
  static final int MAX_DEVICES = 100_000;

  /**
   * Tokens nobody owns kept in memory, so the same wrong token resent by many phones at once (a
   * revoked device's) costs one lookup a second; the rest are each looked up, and the gateway
   * limits how many a client may send ({@code BOLO_WRONG_TOKENS_PER_MINUTE}).
   */
  static final int MAX_UNKNOWN_TOKENS = 1_024;

  private final Jdbc jdbc;
  private final long trialMillis;
  private final Map<String, String> staticDevicesByTokenHash;

  /** Tokens that belong to a device; the loader's null (nobody's) is not kept here. */
  private final LoadingCache<String, @Nullable Device> devicesByTokenHash;

  private final Cache<String, Boolean> unknownTokenHashes;
  private final LoadingCache<String, Long> limitsByDevice;

  /** Remembers for {@link #REMEMBERED} on {@code ticker} (elapsed nanoseconds). */
  RememberedDevices(Jdbc jdbc, LedgerConfig config, LongSupplier ticker) {
    this.jdbc = jdbc;
    this.trialMillis = config.trialMillis();
    Map<String, String> byHash = new HashMap<>();
    config.staticTokens().forEach((name, token) -> byHash.put(Tokens.hash(token), name));
    this.staticDevicesByTokenHash = Map.copyOf(byHash);
    this.devicesByTokenHash = remembered(ticker, MAX_DEVICES, this::lookUpToken);
    this.unknownTokenHashes =
        Caffeine.newBuilder()
            .maximumSize(MAX_UNKNOWN_TOKENS)
            .expireAfterWrite(REMEMBERED)
            .ticker(ticker::getAsLong)
            .build();
    this.limitsByDevice = remembered(ticker, MAX_DEVICES, this::lookUpLimit);
  }

  /** The device owning {@code token}, if it is not revoked. */
  Optional<Device> authenticate(String token) {
    String hash = Tokens.hash(token);
    if (unknownTokenHashes.getIfPresent(hash) != null) {
      return Optional.empty();
    }
    Device device = devicesByTokenHash.get(hash);
    if (device == null) {
      unknownTokenHashes.put(hash, Boolean.TRUE);
    }
    return Optional.ofNullable(device);
  }

  /** Tokens of devices in memory now, for tests: unknown tokens never count here. */
  long rememberedDeviceTokens() {
    devicesByTokenHash.cleanUp();
    return devicesByTokenHash.estimatedSize();
  }

  /** Tokens nobody owns in memory now, for tests. */
  long rememberedUnknownTokens() {
    unknownTokenHashes.cleanUp();
    return unknownTokenHashes.estimatedSize();
  }

  /** The device's limit in ms, 0 when it has none; a device that is gone has none to spend. */
  long limitMillis(String device) {
    return limitsByDevice.get(device);
  }

  /** Forgets what memory says about tokens and limits: this ledger has just changed them. */
  void forget() {
    devicesByTokenHash.invalidateAll();
    unknownTokenHashes.invalidateAll();
    limitsByDevice.invalidateAll();
  }

  /** The device owning the token of {@code hash}; null for nobody, which is then not kept. */
  private @Nullable Device lookUpToken(String hash) {
    String configured = staticDevicesByTokenHash.get(hash);
    Optional<Device> owner =
        jdbc.read(
            "authenticate",
            c -> {
              if (configured != null) {
                return queryName(
                    c,
                    "SELECT name FROM devices WHERE name = ? AND revoked_at IS NULL",
                    configured);
              }
              return queryName(
                  c, "SELECT name FROM devices WHERE token_hash = ? AND revoked_at IS NULL", hash);
            });
    return owner.orElse(null);
  }

  private Long lookUpLimit(String device) {
    return jdbc.read(
        "read limit",
        c -> {
          try (PreparedStatement s =
              c.prepareStatement("SELECT quota_ms FROM devices WHERE name = ?")) {
            s.setString(1, device);
            try (ResultSet r = s.executeQuery()) {
              if (!r.next()) {
                return 0L;
              }
              long override = r.getLong(1);
              return r.wasNull() ? trialMillis : override;
            }
          }
        });
  }

  /**
   * Answers by key from memory for at most {@link #REMEMBERED}, reloaded in the background after
   * half of it so requests seldom wait for the database.
   */
  private static <V extends @Nullable Object> LoadingCache<String, V> remembered(
      LongSupplier ticker, int maximumSize, CacheLoader<String, V> lookUp) {
    return Caffeine.newBuilder()
        .maximumSize(maximumSize)
        .expireAfterWrite(REMEMBERED)
        .refreshAfterWrite(REMEMBERED.dividedBy(2))
        // The request that finds an entry stale reloads it itself, at once: queued on a busy
        // common pool, a reload could outlast the entry, and then every request waiting for the
        // same token would wait for the database together.
        .executor(Runnable::run)
        .ticker(ticker::getAsLong)
        .build(lookUp);
  }

  private static Optional<Device> queryName(Connection c, String sql, String parameter)
      throws SQLException {
    try (PreparedStatement s = c.prepareStatement(sql)) {
      s.setString(1, parameter);
      try (ResultSet r = s.executeQuery()) {
        return r.next() ? Optional.of(new Device(r.getString(1))) : Optional.empty();
      }
    }
  }
}
