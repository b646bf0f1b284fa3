package dev.bolo.bench;

import io.javalin.Javalin;
import java.io.InputStream;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.ServerConnector;

/**
 * An OpenAI-compatible provider stand-in, run in its own JVM by {@link GatewayLoad}: it reads each
 * upload to its end, waits {@code --delay-ms} (0 by default) and answers a short transcript. {@code
 * GET /calls} answers how many transcriptions it has served.
 *
 * <p>Usage: {@code StandInProvider --port N [--delay-ms 0]}
 */
public final class StandInProvider {

  private StandInProvider() {}

  public static void main(String[] args) {
    int port = 0;
    long delayMillis = 0;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--port" -> port = Integer.parseInt(args[i + 1]);
        case "--delay-ms" -> delayMillis = Long.parseLong(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option: " + args[i]);
      }
    }
    Javalin provider = create(new AtomicLong(), delayMillis, port);
    provider.start();
    System.out.println("stand-in listening on " + provider.port());
  }

  /**
   * The stand-in on 127.0.0.1:{@code port} (0: any free port), not started: counts served
   * transcriptions in {@code calls}. Its port holds as many handshakes as the kernel allows, as a
   * provider's would (and as the gateway's does): with the 50 a Java server socket asks for, 2,000
   * connections opened at once would wait seconds for TCP to resend theirs, in "direct" rows too.
   */
  static Javalin create(AtomicLong calls, long delay, int port) {
    return Javalin.create(
        config -> {
          config.concurrency.useVirtualThreads = true;
          config.jetty.addConnector(
              (server, http) -> {
                ServerConnector connector =
                    new ServerConnector(server, new HttpConnectionFactory(http));
                connector.setHost("127.0.0.1");
                connector.setPort(port);
                connector.setAcceptQueueSize(65_535);
                return connector;
              });
          config.startup.showJavalinBanner = false;
          config.routes.get("/calls", ctx -> ctx.result(Long.toString(calls.get())));
          config.routes.post(
              "/v1/audio/transcriptions",
              ctx -> {
                long size = 0;
                byte[] buffer = new byte[64 * 1024];
                try (InputStream in = ctx.req().getInputStream()) {
                  int n;
                  while ((n = in.read(buffer)) != -1) {
                    size += n;
                  }
                }
                if (delay > 0) {
                  Thread.sleep(delay);
                }
                calls.incrementAndGet();
                ctx.contentType("application/json")
                    .result("{\"text\":\"a note of " + size + " bytes\"}");
              });
        });
  }
}
