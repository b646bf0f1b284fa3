package dev.bolo.server.http;

import dev.bolo.server.health.Readiness;
import dev.bolo.server.ledger.DurableLedger;
import dev.bolo.server.tls.PhoneAccess;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.context.Scope;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The operator dashboard at {@code /admin} and its JSON API under {@code /admin/api/}
 * (docs/admin-api.md). Registered only when {@code BOLO_ADMIN_TOKEN} is set, so without it both
 * answer 404 like any unknown path. The page itself is public (it holds no data and asks for the
 * token); every API call needs {@code Authorization: Bearer <admin token>}. A bearer header and no
 * cookie: a browser never sends it by itself, so another site cannot make an operator's browser
 * call the API (no CSRF surface).
 */
public final class AdminRoutes {

  private AdminRoutes() {}

  /**
   * What the dashboard reads and changes.
   *
   * @param token {@code BOLO_ADMIN_TOKEN}
   * @param ledger devices and usage
   * @param readiness each component's readiness, as {@code /readyz} reports it
   * @param metrics the gateway's meters, read for the live panel
   * @param clock wall time, for the usage ranges
   * @param phones where phones open the page, for the QR code of a new device
   * @param wrongTokens wrong tokens per client address, counted with the devices' wrong tokens
   */
  public record Services(
      String token,
      DurableLedger ledger,
      Map<String, Supplier<Readiness>> readiness,
      MeterRegistry metrics,
      Clock clock,
      PhoneAccess phones,
      WrongTokens wrongTokens) {

    public Services {
      Objects.requireNonNull(token, "token");
      Objects.requireNonNull(phones, "phones");
      Objects.requireNonNull(wrongTokens, "wrongTokens");
      readiness = Map.copyOf(readiness);
    }

    /** Leaves the token out, so logging the services cannot leak it. */
    @Override
    public String toString() {
      return "AdminRoutes.Services[readiness=" + readiness.keySet() + "]";
    }
  }

  public static void register(RoutesConfig routes, Services services) {
    AdminPage page = AdminPage.load();
    routes.get("/admin", page::html);
    routes.get("/admin/admin.js", page::script);
    routes.get("/admin/admin.css", page::styles);
    routes.get("/admin/admin-jobs.js", page::jobsScript);
    AdminApi api = new AdminApi(services.ledger(), services.clock());
    LiveStatus live = new LiveStatus(services.readiness(), services.metrics(), services.clock());
    byte[] token = sha256(services.token());
    WrongTokens wrong = services.wrongTokens();
    routes.get("/admin/api/devices", guarded(token, wrong, api::devices));
    routes.post("/admin/api/devices", guarded(token, wrong, api::addDevice));
    routes.post("/admin/api/devices/{name}/revoke", guarded(token, wrong, api::revoke));
    routes.put("/admin/api/devices/{name}/quota", guarded(token, wrong, api::setQuota));
    routes.post(
        "/admin/api/devices/{name}/webhook-secret",
        guarded(token, wrong, api::rotateWebhookSecret));
    routes.get("/admin/api/usage", guarded(token, wrong, api::usage));
    routes.get("/admin/api/live", guarded(token, wrong, live::answer));
    AdminJobs jobs =
        new AdminJobs(
            services.ledger().jobs(), services.ledger().webhookOutbox(), services.clock());
    routes.get("/admin/api/jobs", guarded(token, wrong, jobs::overview));
    routes.post("/admin/api/webhooks/{id}/send-again", guarded(token, wrong, jobs::sendAgain));
    PhoneSetup phones = new PhoneSetup(services.phones());
    routes.get("/admin/api/connect", guarded(token, wrong, phones::connect));
    routes.post("/admin/api/qr", guarded(token, wrong, phones::qrCode));
  }

  /**
   * Runs {@code handler} only for a request carrying the admin token, else answers 401; a client
   * address that has sent too many wrong tokens is answered 429 before any comparison, the right
   * token included: there is one admin token, and a pass for it would answer the guess. Both sides
   * are hashed before the comparison, which {@link MessageDigest#isEqual} makes in constant time:
   * neither the token's characters nor its length show in how long a refusal takes.
   */
  private static Handler guarded(byte[] tokenSha256, WrongTokens wrongTokens, Handler handler) {
    return ctx -> {
      // The request's span names the route, never the device or event its path names.
      try (Scope traced = RequestSpans.enter(ctx.req(), ctx.endpoint().path)) {
        guard(tokenSha256, wrongTokens, handler, ctx);
      }
    };
  }

  private static void guard(
      byte[] tokenSha256, WrongTokens wrongTokens, Handler handler, Context ctx) throws Exception {
    String presented = DeviceGate.bearerToken(ctx);
    InetAddress client = WrongTokens.clientOf(ctx);
    Duration untilNextGuess =
        presented == null ? Duration.ZERO : wrongTokens.waitBefore(client, presented);
    if (!untilNextGuess.isZero()) {
      ErrorWriter.write(ctx, Dialect.NATIVE, Errors.tooManyWrongTokens(untilNextGuess));
      return;
    }
    if (presented == null || !MessageDigest.isEqual(tokenSha256, sha256(presented))) {
      if (presented != null) {
        wrongTokens.count(client);
      }
      ctx.header("WWW-Authenticate", "Bearer realm=\"bolo-admin\"");
      ErrorWriter.write(ctx, Dialect.NATIVE, Errors.adminUnauthorized());
      return;
    }
    handler.handle(ctx);
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
