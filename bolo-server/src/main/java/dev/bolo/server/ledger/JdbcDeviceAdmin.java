package dev.bolo.server.ledger;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** {@link DeviceAdmin} on the ledger's tables. */
final class JdbcDeviceAdmin implements DeviceAdmin {

  private final Jdbc jdbc;
  private final Clock clock;
  private final long trialMillis;
  private final JdbcWebhookSecrets secrets;

  JdbcDeviceAdmin(Jdbc jdbc, Clock clock, long trialMillis, JdbcWebhookSecrets secrets) {
    this.jdbc = jdbc;
    this.clock = clock;
    this.trialMillis = trialMillis;
    this.secrets = secrets;
  }

  @Override
  public Enrollment add(Device device) {
    String token = Tokens.newToken();
    String secret = JdbcWebhookSecrets.newSecret();
    boolean added = insertIfAbsent(device.name(), Tokens.hash(token), secret);
    return added
        ? new Enrollment.Enrolled(device, token, secret)
        : new Enrollment.NameTaken(device.name());
  }

  @Override
  public Optional<String> rotateWebhookSecret(String name) {
    return secrets.rotate(name);
  }

  /** Gives a device of {@code BOLO_DEVICE_TOKENS} its row, for quota and revocation. */
  /**
   * A device named in {@code BOLO_DEVICE_TOKENS} that was also enrolled with its own token would
   * authenticate with either token, and revoking one would silently leave the other: refused.
   *
   * @throws LedgerConfigException naming the devices
   */
  void refuseEnrolled(java.util.Collection<String> configured) {
    List<String> enrolled =
        jdbc.autoCommit(
            "check configured devices",
            c -> {
              List<String> both = new ArrayList<>();
              for (String name : new java.util.TreeSet<>(configured)) {
                try (PreparedStatement s =
                    c.prepareStatement(
                        "SELECT 1 FROM devices WHERE name = ? AND token_hash IS NOT NULL")) {
                  s.setString(1, name);
                  try (ResultSet r = s.executeQuery()) {
                    if (r.next()) {
                      both.add(name);
                    }
                  }
                }
              }
              return both;
            });
    if (!enrolled.isEmpty()) {
      throw new LedgerConfigException(
          "BOLO_DEVICE_TOKENS names "
              + String.join(", ", enrolled)
              + ", also enrolled with its own token by `bolo devices add`: remove it from"
              + " BOLO_DEVICE_TOKENS, or `bolo devices revoke` the enrolled device and rename one");
    }
  }

  void addConfigured(String name) {
    // No secret: nobody would see it. The operator rotates one in when the device uses webhooks.
    insertIfAbsent(name, null, null);
  }

  @Override
  public List<DeviceInfo> devices() {
    return jdbc.autoCommit(
        "list devices",
        c -> {
          List<DeviceInfo> devices = new ArrayList<>();
          try (PreparedStatement s =
                  c.prepareStatement(
                      "SELECT name, created_at, revoked_at, quota_ms, charged_ms,"
                          + " CASE WHEN token_hash IS NULL THEN 1 ELSE 0 END"
                          + " FROM devices ORDER BY name");
              ResultSet r = s.executeQuery()) {
            while (r.next()) {
              long revokedAt = r.getLong(3);
              Instant revoked = r.wasNull() ? null : Instant.ofEpochMilli(revokedAt);
              long overrideMillis = r.getLong(4);
              Long override = r.wasNull() ? null : overrideMillis;
              devices.add(
                  new DeviceInfo(
                      r.getString(1),
                      Instant.ofEpochMilli(r.getLong(2)),
                      revoked,
                      override,
                      override == null ? trialMillis : override,
                      r.getLong(5),
                      r.getInt(6) == 1));
            }
          }
          return devices;
        });
  }

  @Override
  public boolean revoke(String name) {
    long now = clock.millis();
    return jdbc.inTransaction(
        "revoke device",
        c -> {
          jdbc.update(
              c,
              "UPDATE devices SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL",
              now,
              name);
          return exists(c, name);
        });
  }

  @Override
  public boolean setQuota(String name, long seconds) {
    if (seconds < 0) {
      throw new IllegalArgumentException("quota seconds must be >= 0: " + seconds);
    }
    long millis = Math.multiplyExact(seconds, 1000L);
    return jdbc.autoCommit(
        "set quota",
        c -> jdbc.update(c, "UPDATE devices SET quota_ms = ? WHERE name = ?", millis, name) == 1);
  }

  /**
   * Inserts the device, with its webhook secret when one is given, unless one of that name exists;
   * true when inserted.
   */
  private boolean insertIfAbsent(
      String name, @Nullable String tokenHash, @Nullable String webhookSecret) {
    long now = clock.millis();
    try {
      return jdbc.inTransaction(
          "add device",
          c -> {
            if (exists(c, name)) {
              return false;
            }
            try (PreparedStatement s =
                c.prepareStatement(
                    "INSERT INTO devices (name, token_hash, created_at, charged_ms)"
                        + " VALUES (?, ?, ?, 0)")) {
              s.setString(1, name);
              s.setString(2, tokenHash);
              s.setLong(3, now);
              s.executeUpdate();
            }
            if (webhookSecret != null) {
              secrets.insertCurrent(c, name, webhookSecret, now);
            }
            return true;
          });
    } catch (LedgerException e) {
      // Another process added the same name between our check and insert (PostgreSQL allows
      // that race; SQLite's write lock does not): the name is taken.
      if (jdbc.autoCommit("find device", c -> exists(c, name))) {
        return false;
      }
      throw e;
    }
  }

  private static boolean exists(Connection c, String name) throws SQLException {
    try (PreparedStatement s = c.prepareStatement("SELECT 1 FROM devices WHERE name = ?")) {
      s.setString(1, name);
      try (ResultSet r = s.executeQuery()) {
        return r.next();
      }
    }
  }
}
