package dev.bolo.server;

import dev.bolo.server.config.ServerConfig;
import dev.bolo.server.engine.moonshine.ModelFilesException;
import dev.bolo.server.tracing.Tracing;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * Runs one gateway process: applies the log level, starts the {@link App}, and on SIGTERM or SIGINT
 * drains it (PROTOCOL.md: {@code BOLO_DRAIN_TIMEOUT}) and returns exit code 0. Used by {@code bolo
 * serve}.
 */
public final class Main {

  private static final Logger log = LoggerFactory.getLogger(Main.class);

  /** Exit code when the gateway could not start (port in use, data directory unwritable, …). */
  public static final int CANNOT_START = 1;

  /** Exit code when a second SIGTERM or SIGINT cut the drain short (128 + SIGTERM's 15). */
  public static final int SECOND_SIGNAL = 143;

  /** Exit code for a configuration error, as {@code bolo serve} gives for a bad variable. */
  public static final int CONFIG_ERROR = 2;

  /**
   * Exit code when the port is taken: like a bad variable, only the operator can fix it (another
   * {@code BOLO_PORT}, or stop the other process), so a supervisor should not just restart.
   */
  public static final int PORT_IN_USE = CONFIG_ERROR;

  private Main() {}

  /**
   * Serves until the process is told to stop, then drains.
   *
   * @param started told the running app once it listens (tests print its port)
   * @return the process's exit code: 0 after a drain, {@link #CANNOT_START} when it never served
   */
  public static int serve(ServerConfig config, Consumer<App> started) throws InterruptedException {
    return serve(config, () -> {}, started);
  }

  /**
   * {@link #serve(ServerConfig, Consumer)}, running {@code beforeListening} once the gateway is
   * made (its configuration and ledger checked, so a mistake is reported at once) and before its
   * port opens: {@code bolo serve}'s warm-up ({@code BOLO_WARMUP}).
   */
  public static int serve(ServerConfig config, Runnable beforeListening, Consumer<App> started)
      throws InterruptedException {
    LogSetup.apply(config.logLevel().name(), config.logFormat());
    CountDownLatch stop = new CountDownLatch(1);
    // Handling the signals ourselves (instead of a shutdown hook) lets the drain finish and the
    // process exit 0: a JVM stopped by SIGTERM's default handler exits 143.
    // A second signal while draining means "now": the operator or orchestrator has run out of
    // patience, and charges still owed are in the journal for the next start.
    sun.misc.SignalHandler handler =
        signal -> {
          if (stop.getCount() == 0) {
            Runtime.getRuntime().halt(SECOND_SIGNAL);
          }
          stop.countDown();
        };
    Signal.handle(new Signal("TERM"), handler);
    Signal.handle(new Signal("INT"), handler);
    // Found before anything starts, so the one line that says why is all the operator sees. The
    // port may still be taken in between: app.start() reports that the same way.
    String taken = portTaken(config);
    if (taken != null) {
      System.err.println("bolo serve: " + taken);
      return PORT_IN_USE;
    }
    App app;
    try {
      app = App.create(config);
    } catch (ServerConfig.ConfigException | ModelFilesException | Tracing.RefusedConfiguration e) {
      // Found only once the ledger is open (a static token for an enrolled device), the offline
      // engine's weights are read (a file missing or altered) or the OpenTelemetry SDK is built:
      // the same one line and exit code as a configuration error found while reading the
      // variables; a restart would not help.
      System.err.println("bolo serve: " + e.getMessage());
      return CONFIG_ERROR;
    } catch (RuntimeException e) {
      System.err.println("bolo serve: " + cannotStart(config, e));
      log.debug("start failed", e);
      return CANNOT_START;
    }
    try {
      beforeListening.run();
      app.start();
    } catch (RuntimeException e) {
      app.close();
      System.err.println("bolo serve: " + cannotStart(config, e));
      log.debug("start failed", e);
      return isPortInUse(e) ? PORT_IN_USE : CANNOT_START;
    }
    try {
      started.accept(app);
      stop.await();
      log.info("stop requested: draining for up to {}", config.listen().drainTimeout());
      app.drain(config.listen().drainTimeout());
    } finally {
      app.close();
    }
    log.info("stopped");
    return 0;
  }

  /** Why the configured address cannot be listened on, or null when it is free now. */
  private static @Nullable String portTaken(ServerConfig config) {
    ServerConfig.Listen listen = config.listen();
    if (listen.port() == 0) {
      return null;
    }
    try (ServerSocket probe = new ServerSocket()) {
      probe.setReuseAddress(true);
      probe.bind(new InetSocketAddress(listen.host(), listen.port()));
      return null;
    } catch (BindException e) {
      return cannotStart(config, e);
    } catch (IOException e) {
      // Anything else (an unknown host) is reported when the gateway itself tries.
      return null;
    }
  }

  private static boolean isPortInUse(Throwable e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof BindException) {
        return true;
      }
    }
    return false;
  }

  private static String cannotStart(ServerConfig config, Throwable e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof BindException) {
        return "cannot listen on "
            + config.listen().host()
            + ":"
            + config.listen().port()
            + " ("
            + cause.getMessage()
            + "); set BOLO_PORT or BOLO_HOST, or stop the other process";
      }
    }
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return root == e || root.getMessage() == null ? message : message + ": " + root.getMessage();
  }
}
