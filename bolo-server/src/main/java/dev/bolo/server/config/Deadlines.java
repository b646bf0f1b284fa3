package dev.bolo.server.config;

import dev.bolo.server.engine.UpstreamTimeout;
import java.time.Duration;
import java.util.Objects;

/**
 * The engine deadline for one note and the clients' patience it must outlast (PROTOCOL.md rule 7).
 *
 * @param upstream {@code BOLO_UPSTREAM_TIMEOUT} + the note's length, capped at {@code
 *     BOLO_UPSTREAM_TIMEOUT_MAX}
 * @param clientReadTimeout the SDK's read timeout: {@code BOLO_CLIENT_READ_TIMEOUT} + half the
 *     note, capped at {@code BOLO_CLIENT_READ_TIMEOUT_MAX}
 * @param clientResendPauses the SDK's pauses between attempts added up, {@code
 *     BOLO_CLIENT_RESEND_PAUSES}
 */
public record Deadlines(
    UpstreamTimeout upstream, UpstreamTimeout clientReadTimeout, Duration clientResendPauses) {
  public Deadlines {
    Objects.requireNonNull(upstream, "upstream");
    Objects.requireNonNull(clientReadTimeout, "clientReadTimeout");
    if (clientResendPauses.isNegative()) {
      throw new IllegalArgumentException("clientResendPauses must be >= 0: " + clientResendPauses);
    }
  }
}
