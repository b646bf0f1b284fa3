package dev.bolo.server.http;

import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.Ledger;
import dev.bolo.server.ledger.LedgerException;
import dev.bolo.server.ledger.RateDecision;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way into every device route, as a decorator around its handler: the device rungs of the
 * {@link AdmissionLadder}, in its order. A request passes while the gateway is not draining, with a
 * known bearer token, from an address not out of wrong tokens ({@link WrongTokens}), within its
 * device's rate limit, and the handler finds its {@link Device} on the request ({@link #device});
 * otherwise the gate answers the rung's refusal in the path's {@link Dialect}. Thread safe.
 */
final class DeviceGate {

  private static final Logger log = LoggerFactory.getLogger(DeviceGate.class);

  /** Where the gate puts the device it let in, for the handler inside. */
  static final String DEVICE_ATTRIBUTE = "bolo.device";

  private final Ledger ledger;
  private final InFlightRequests inFlight;
  private final WrongTokens wrongTokens;

  DeviceGate(Ledger ledger, InFlightRequests inFlight, WrongTokens wrongTokens) {
    this.ledger = Objects.requireNonNull(ledger, "ledger");
    this.inFlight = Objects.requireNonNull(inFlight, "inFlight");
    this.wrongTokens = Objects.requireNonNull(wrongTokens, "wrongTokens");
  }

  /**
   * {@code route} behind the gate, counted as in flight for the drain.
   *
   * @param again how the client tries again, ending the 503 messages: {@code "resume shortly"}
   */
  Handler around(String again, Handler route) {
    return new Guarded(route, again, false);
  }

  /**
   * {@code route}, a note's upload, behind the gate: a refusal comes before the body was read, so
   * it is answered as every unread body is ({@link ErrorWriter#refuseBody}).
   */
  Handler aroundUpload(Handler route) {
    return new Guarded(route, "resend shortly", true);
  }

  /**
   * The device the gate let in for this request.
   *
   * @throws IllegalStateException when the route is not behind the gate (a wiring fault)
   */
  static Device device(Context ctx) {
    @Nullable Device device = ctx.attribute(DEVICE_ATTRIBUTE);
    if (device == null) {
      throw new IllegalStateException("no device on " + ctx.method() + " " + ctx.path());
    }
    return device;
  }

  /**
   * The device whose bearer token the request carries, if any; the one rule for every route.
   *
   * @throws LedgerException when the ledger cannot say
   */
  Optional<Device> bearerOf(Context ctx) {
    String token = bearerToken(ctx);
    return token == null ? Optional.empty() : ledger.authenticate(token);
  }

  /** The bearer token the request carries; null without one. */
  static @Nullable String bearerToken(Context ctx) {
    String header = ctx.header("Authorization");
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return null;
    }
    String token = header.substring(7).trim();
    return token.isEmpty() ? null : token;
  }

  /** One route behind the gate. */
  private final class Guarded implements Handler {
    private final Handler route;
    private final String again;
    private final boolean closesOnRefusal;

    Guarded(Handler route, String again, boolean closesOnRefusal) {
      this.route = Objects.requireNonNull(route, "route");
      this.again = again;
      this.closesOnRefusal = closesOnRefusal;
    }

    @Override
    public void handle(Context ctx) throws Exception {
      // Draining for shutdown: this instance takes nothing new; it is gone within seconds, and
      // another one (or this one restarted) takes the resend.
      if (!inFlight.tryEnter()) {
        refuse(ctx, AdmissionLadder.DRAINING.refusal("the gateway is shutting down; " + again));
        return;
      }
      // A request answered later is in flight until then: a drain waits for it.
      RequestEnd.of(ctx).release(inFlight::exit);
      String token = bearerToken(ctx);
      // Checked before anything else, so an unknown token learns nothing about uploads or hashes.
      if (token == null) {
        refuse(ctx, Errors.unauthorized());
        return;
      }
      InetAddress client = WrongTokens.clientOf(ctx);
      Duration untilNextGuess = wrongTokens.waitBefore(client, token);
      // This address has sent too many wrong tokens: another guess learns nothing, costs nothing.
      if (!untilNextGuess.isZero()) {
        refuse(ctx, Errors.tooManyWrongTokens(untilNextGuess));
        return;
      }
      Optional<Device> device;
      try {
        device = ledger.authenticate(token);
      } catch (LedgerException e) {
        // The gateway's own fault: the client must try again, not give up on the note.
        log.warn("cannot authenticate: {}", e.getMessage());
        refuse(ctx, AdmissionLadder.LEDGER.refusal("the device ledger is unavailable; " + again));
        return;
      }
      if (device.isEmpty()) {
        wrongTokens.count(client);
        refuse(ctx, Errors.unauthorized());
        return;
      }
      wrongTokens.right(client, token);
      RequestLog.nameDevice(device.get().name());
      // Every request counts, lookups and appends as much as uploads.
      if (ledger.admit(device.get()) instanceof RateDecision.Limited limited) {
        refuse(
            ctx,
            AdmissionLadder.DEVICE_RATE.refusal(
                "too many requests from this device; retry later", limited.retryAfter()));
        return;
      }
      ctx.attribute(DEVICE_ATTRIBUTE, device.get());
      route.handle(ctx);
    }

    private void refuse(Context ctx, ApiError error) {
      if (closesOnRefusal) {
        ErrorWriter.refuseBody(ctx, Dialect.of(ctx.path()), error);
      } else {
        ErrorWriter.write(ctx, Dialect.of(ctx.path()), error);
      }
    }
  }
}
