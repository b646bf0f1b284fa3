package dev.bolo.server.ledger;

import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * Devices' webhook signing secrets in the ledger's {@code webhook_secrets} table: made with the
 * device, replaced by a rotation after which the old one signs on for {@link #OVERLAP}, read for
 * every event the gateway signs. Thread safe.
 */
final class JdbcWebhookSecrets {

  /**
   * How long a replaced secret goes on signing beside the new one, so that receivers can take the
   * new secret in their own time and no event fails verification meanwhile (PROTOCOL v4).
   */
  static final Duration OVERLAP = Duration.ofHours(24);

  /**
   * Random bytes of a secret: as many as HMAC-SHA256's output, within the 24 to 64 the Standard
   * Webhooks specification asks of symmetric secrets.
   */
  private static final int SECRET_BYTES = 32;

  private static final SecureRandom RANDOM = new SecureRandom();

  private final Jdbc jdbc;
  private final Clock clock;

  JdbcWebhookSecrets(Jdbc jdbc, Clock clock) {
    this.jdbc = jdbc;
    this.clock = clock;
  }

  /** A new secret in the specification's format: {@code whsec_} and standard base64. */
  static String newSecret() {
    byte[] bytes = new byte[SECRET_BYTES];
    RANDOM.nextBytes(bytes);
    return "whsec_" + Base64.getEncoder().encodeToString(bytes);
  }

  /**
   * Stores {@code secret} as the current one of a device being added in {@code c}'s transaction.
   */
  void insertCurrent(Connection c, String device, String secret, long now) throws SQLException {
    jdbc.update(
        c,
        "INSERT INTO webhook_secrets (id, device_name, secret, created_at, retires_at)"
            + " VALUES (?, ?, ?, ?, NULL)",
        RowIds.next(now),
        device,
        secret,
        now);
  }

  /**
   * Makes a new current secret for {@code device}; the one it replaces signs on for {@link
   * #OVERLAP}, and one replaced before that stops now, so that at most two ever sign.
   *
   * @return the new secret, or empty when there is no such device
   */
  Optional<String> rotate(String device) {
    long now = clock.millis();
    String secret = newSecret();
    return jdbc.inTransaction(
        "rotate webhook secret",
        c -> {
          // Rotations of one device, from any instance or the CLI, take turns.
          if (jdbc.update(c, "UPDATE devices SET charged_ms = charged_ms WHERE name = ?", device)
              == 0) {
            return Optional.<String>empty();
          }
          jdbc.update(
              c,
              "UPDATE webhook_secrets SET retires_at = ?"
                  + " WHERE device_name = ? AND retires_at IS NOT NULL AND retires_at > ?",
              now,
              device,
              now);
          jdbc.update(
              c,
              "UPDATE webhook_secrets SET retires_at = ? WHERE device_name = ? AND retires_at IS NULL",
              now + OVERLAP.toMillis(),
              device);
          insertCurrent(c, device, secret, now);
          return Optional.of(secret);
        });
  }

  /**
   * The secrets that sign for {@code device} now, the current one first; empty when the device is
   * unknown, revoked, or has none yet.
   */
  List<String> signing(String device) {
    long now = clock.millis();
    return jdbc.read(
        "read webhook secrets",
        c -> {
          List<String> secrets = new ArrayList<>();
          try (PreparedStatement s =
              c.prepareStatement(
                  "SELECT w.secret FROM webhook_secrets w JOIN devices d ON d.name = w.device_name"
                      + " WHERE w.device_name = ? AND d.revoked_at IS NULL"
                      + " AND (w.retires_at IS NULL OR w.retires_at > ?)"
                      + " ORDER BY CASE WHEN w.retires_at IS NULL THEN 0 ELSE 1 END,"
                      + " w.retires_at DESC")) {
            s.setString(1, device);
            s.setLong(2, now);
            try (ResultSet r = s.executeQuery()) {
              while (r.next()) {
                secrets.add(r.getString(1));
              }
            }
          }
          return secrets;
        });
  }
}
