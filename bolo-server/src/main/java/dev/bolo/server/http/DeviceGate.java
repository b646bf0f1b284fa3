package dev.bolo.server.http;

import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.Ledger;
import dev.bolo.server.ledger.LedgerException;
import dev.bolo.server.ledger.RateDecision;
import io.javalin.http.Context;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way into every device route: a request passes while the gateway is not draining, with a
 * known bearer token, within its device's rate limit; otherwise the route's own refusal answers it
 * (503 while draining or while the ledger cannot say, 401 without a known token, 429 over the
 * limit). Each route keeps its way of refusing: an upload refused before its body was read drains
 * it, a lookup has none. Thread safe.
 */
final class DeviceGate {

  private static final Logger log = LoggerFactory.getLogger(DeviceGate.class);

  /** A draining instance is gone within seconds; another one (or this one restarted) takes it. */
  private static final Duration DRAINING_RETRY_AFTER = Duration.ofSeconds(2);

  private final Ledger ledger;
  private final InFlightRequests inFlight;

  DeviceGate(Ledger ledger, InFlightRequests inFlight) {
    this.ledger = Objects.requireNonNull(ledger, "ledger");
    this.inFlight = Objects.requireNonNull(inFlight, "inFlight");
  }

  /** What a route does for a device that passed the gate. */
  @FunctionalInterface
  interface Admitted {
    void serve(Context ctx, String requestId, Device device) throws Exception;
  }

  /** How a route answers a request the gate turns away. */
  @FunctionalInterface
  interface Refusal {
    void send(Context ctx, ApiError error, String requestId) throws IOException;
  }

  /**
   * Serves the request's device with {@code admitted}, counted as in flight for the drain, or
   * answers why not with {@code refusal}.
   *
   * @param again how the client tries again, ending the 503 messages: {@code "resend shortly"}
   */
  void pass(Context ctx, String again, Refusal refusal, Admitted admitted) throws Exception {
    String requestId = RequestLog.requestIdOf(ctx);
    // Draining for shutdown: this instance takes nothing new.
    if (!inFlight.tryEnter()) {
      refusal.send(
          ctx,
          Errors.serverUnavailable("the gateway is shutting down; " + again, DRAINING_RETRY_AFTER),
          requestId);
      return;
    }
    try {
      Optional<Device> device;
      try {
        device = deviceOf(ctx);
      } catch (LedgerException e) {
        // The gateway's own fault: the client must try again, not give up on the note.
        log.warn("cannot authenticate: {}", e.getMessage());
        refusal.send(
            ctx,
            Errors.serverUnavailable("the device ledger is unavailable; " + again, null),
            requestId);
        return;
      }
      // Checked before anything else, so an unknown token learns nothing about uploads or hashes.
      if (device.isEmpty()) {
        refusal.send(ctx, Errors.unauthorized(), requestId);
        return;
      }
      RequestLog.nameDevice(device.get().name());
      // Every request counts, lookups and appends as much as uploads.
      if (ledger.admit(device.get()) instanceof RateDecision.Limited limited) {
        refusal.send(ctx, Errors.rateLimited(limited.retryAfter()), requestId);
        return;
      }
      admitted.serve(ctx, requestId, device.get());
    } finally {
      inFlight.exit();
    }
  }

  /**
   * The device whose bearer token the request carries, if any; the one rule for every route.
   *
   * @throws LedgerException when the ledger cannot say
   */
  Optional<Device> deviceOf(Context ctx) {
    String header = ctx.header("Authorization");
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return Optional.empty();
    }
    String token = header.substring(7).trim();
    return token.isEmpty() ? Optional.empty() : ledger.authenticate(token);
  }
}
