package dev.bolo.server;

import dev.bolo.server.config.ServerConfig;
import dev.bolo.server.health.Readiness;
import dev.bolo.server.http.AdminRoutes;
import dev.bolo.server.http.HandlerThreads;
import dev.bolo.server.http.HttpsOnly;
import dev.bolo.server.http.JsonErrorHandler;
import dev.bolo.server.http.RequestAdmission;
import dev.bolo.server.http.RequestMetrics;
import dev.bolo.server.http.RequestSpans;
import dev.bolo.server.http.Routes;
import dev.bolo.server.ledger.DurableLedger;
import dev.bolo.server.tls.GatewayTls;
import dev.bolo.server.tracing.Tracing;
import io.javalin.Javalin;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.util.Map;
import java.util.function.Supplier;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.jspecify.annotations.Nullable;

/**
 * The gateway's HTTP server, for the composition root: Javalin on Jetty with its port (plain, or
 * TLS and plain HTTP on one port), the handlers around every request, and every route. Stateless.
 */
final class HttpServer {

  /**
   * Connections the kernel completes and holds for the gateway to accept: the listen backlog asked
   * for; Linux gives at most {@code net.core.somaxconn} (4096 by default since 5.4), so that is the
   * operator's setting. Jetty's default asks for none, and the JDK then asks for 50: when more
   * phones than that connect at once (a thousand reconnecting after a network blip, a load
   * generator opening its connections), the kernel drops the rest's handshakes, and each waits 1, 3
   * or 7 s for TCP to try again, its note's first request with it (measured: 24,069 listen
   * overflows in one run of 2,000 connections, p99 5.7 s where the provider answers in 1.5 s).
   */
  static final int ACCEPT_QUEUE = 65_535;

  private HttpServer() {}

  private static ServerConnector plainConnector(
      Server server, HttpConfiguration http, String host, int port) {
    ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
    connector.setHost(host);
    connector.setPort(port);
    return connector;
  }

  /**
   * The gateway's TLS ({@code BOLO_TLS}), its certificate made or read now, so that a mistake stops
   * the start with the variable's name; null when off.
   */
  static @Nullable GatewayTls tls(ServerConfig config, Clock clock) {
    try {
      return GatewayTls.prepare(
          config.tls(), config.ledger().dataDir(), config.listen().host(), clock);
    } catch (IllegalArgumentException e) {
      throw new ServerConfig.ConfigException(
          (config.tls().certificate() != null ? "BOLO_TLS_CERT, BOLO_TLS_KEY: " : "BOLO_TLS: ")
              + e.getMessage());
    }
  }

  /** The server, not yet listening; {@code tls} null for plain HTTP. */
  static Javalin create(
      ServerConfig config,
      Clock clock,
      Routes.Services services,
      RequestAdmission admission,
      DurableLedger ledger,
      Map<String, Supplier<Readiness>> readiness,
      PrometheusMeterRegistry metrics,
      @Nullable GatewayTls tls,
      Tracing tracing) {
    ServerConfig.Listen listen = config.listen();
    return Javalin.create(
        javalinConfig -> {
          javalinConfig.concurrency.useVirtualThreads = true;
          javalinConfig.startup.showJavalinBanner = false;
          javalinConfig.startup.showOldJavalinVersionWarning = false;
          // A known path asked with another method is 405 with Allow, not 404.
          javalinConfig.http.prefer405over404 = true;
          javalinConfig.jetty.host = listen.host();
          javalinConfig.jetty.port = listen.port();
          // Bolo's own connector, not Javalin's (which it adds only when none is added), for its
          // accept queue; with TLS, one that speaks TLS and plain HTTP on the port.
          javalinConfig.jetty.addConnector(
              (server, http) -> {
                ServerConnector connector =
                    tls != null
                        ? tls.connector(server, http, listen.host(), listen.port())
                        : plainConnector(server, http, listen.host(), listen.port());
                connector.setAcceptQueueSize(ACCEPT_QUEUE);
                return connector;
              });
          javalinConfig.jetty.modifyServer(
              server -> {
                // Outermost, so that every answer is counted, a turned-away upload too; then the
                // upload line; Javalin nests its own inside the innermost wrapper.
                RequestMetrics counted = new RequestMetrics(metrics, services.wireTicker());
                // Innermost, around Javalin (which it adds inside): the stop lets the threads in a
                // route leave before it closes the connections.
                admission.setHandler(new HandlerThreads());
                server.setErrorHandler(new JsonErrorHandler(counted));
                // With traces on, every request's span begins here, before it waits its turn.
                if (tracing.isOn()) {
                  RequestSpans traced = new RequestSpans(tracing);
                  traced.setHandler(admission);
                  counted.setHandler(traced);
                } else {
                  counted.setHandler(admission);
                }
                // With TLS, plain HTTP from elsewhere is sent to HTTPS before anything else.
                server.setHandler(tls == null ? counted : new HttpsOnly(counted));
              });
          // Jetty builds a header cache of about 17 KiB for every connection that sends a second
          // request; with thousands of phones connected that is tens of megabytes for a saving of
          // a few header objects per request.
          javalinConfig.jetty.modifyHttpConfiguration(http -> http.setHeaderCacheSize(0));
          Routes.register(javalinConfig.routes, services);
          String adminToken = config.admin().token();
          if (adminToken != null) {
            AdminRoutes.register(
                javalinConfig.routes,
                new AdminRoutes.Services(
                    adminToken,
                    ledger,
                    readiness,
                    metrics,
                    clock,
                    services.phones(),
                    services.wrongTokens()));
          } else {
            org.slf4j.LoggerFactory.getLogger(HttpServer.class)
                .info("operator dashboard off: set BOLO_ADMIN_TOKEN to serve it at /admin");
          }
        });
  }
}
