package dev.bolo.server.testing;

import dev.bolo.testkit.Directories;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's {@code pgbouncer} (installed by {@code .ci/run}) in front of the tests' PostgreSQL, in
 * transaction pooling mode as managed PostgreSQL offers it: a client's transactions may each run on
 * another server connection. Started once per JVM, stopped at its exit. A missing binary fails the
 * test that needs it.
 */
public final class PgBouncer {

  private PgBouncer() {}

  /** Holds the pooler: started when first used. */
  private static final class Running {
    static final int PORT = start();
  }

  /** The JDBC URL of a new, empty database, reached through the pooler. */
  public static String fresh(String prefix) throws java.sql.SQLException {
    String name = PostgresDatabases.create(prefix);
    return "jdbc:postgresql://127.0.0.1:" + Running.PORT + "/" + name + "?user=postgres";
  }

  /**
   * The same database as {@code bouncedUrl}, on the server itself rather than through the pooler.
   */
  public static String direct(String bouncedUrl) {
    return bouncedUrl.replace(":" + Running.PORT + "/", ":" + PostgresDatabases.port() + "/");
  }

  private static int start() {
    Path binary = Path.of("/usr/sbin/pgbouncer");
    if (!Files.isExecutable(binary)) {
      throw new IllegalStateException(
          "pgbouncer is not installed (apt-get install pgbouncer; .ci/run does)");
    }
    try {
      Path dir = Files.createTempDirectory("bolo-pgbouncer-");
      // PgBouncer will not run as root: it runs as nobody, who must read and write here.
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
      int port;
      try (ServerSocket free = new ServerSocket(0)) {
        port = free.getLocalPort();
      }
      Path config = dir.resolve("pgbouncer.ini");
      Files.writeString(
          config,
          """
          [databases]
          * = host=127.0.0.1 port=%d user=postgres

          [pgbouncer]
          listen_addr = 127.0.0.1
          listen_port = %d
          unix_socket_dir =
          auth_type = any
          pool_mode = transaction
          max_client_conn = 200
          default_pool_size = 4
          ignore_startup_parameters = extra_float_digits,options
          logfile = %s
          pidfile = %s
          """
              .formatted(
                  PostgresDatabases.port(),
                  port,
                  dir.resolve("pgbouncer.log"),
                  dir.resolve("pgbouncer.pid")));
      Files.setPosixFilePermissions(config, PosixFilePermissions.fromString("rw-r--r--"));
      List<String> command = new ArrayList<>(List.of(binary.toString()));
      if ("root".equals(System.getProperty("user.name"))) {
        command.addAll(List.of("-u", "nobody"));
      }
      command.add(config.toString());
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("stdout.log").toFile())
              .start();
      Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(process, dir)));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (true) {
        try (Socket probe = new Socket("127.0.0.1", port)) {
          return port;
        } catch (IOException notYet) {
          if (!process.isAlive() || System.nanoTime() > deadline) {
            throw new IllegalStateException(
                "pgbouncer did not start: " + Files.readString(dir.resolve("stdout.log")));
          }
          Thread.sleep(50);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start pgbouncer", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while pgbouncer started", e);
    }
  }

  /** At the JVM's exit: stops PgBouncer and removes its folder. */
  private static void stop(Process process, Path dir) {
    process.destroy();
    try {
      process.waitFor(5, TimeUnit.SECONDS);
      Directories.deleteTree(dir);
    } catch (InterruptedException | IOException e) {
      // The JVM is exiting; a folder left in the temporary directory is all that is lost.
    }
  }
}
