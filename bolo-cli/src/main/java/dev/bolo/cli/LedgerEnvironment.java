package dev.bolo.cli;

import dev.bolo.server.config.ServerConfig;
import dev.bolo.server.config.Variable;
import dev.bolo.server.ledger.DurableLedger;
import dev.bolo.server.ledger.Ledger;
import dev.bolo.server.ledger.LedgerConfig;
import dev.bolo.server.ledger.LedgerException;
import dev.bolo.server.ledger.LedgerTime;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Opens the ledger the gateway uses, named by the same environment variables ({@code
 * BOLO_DATABASE_URL}, {@code BOLO_DATA_DIR}, {@code BOLO_DEVICE_TOKENS}, {@code
 * BOLO_TRIAL_SECONDS}) or {@code --data-dir}, so operator commands see and change what the running
 * server sees. Every command says on stderr which ledger it opened ({@code ledger: PATH}); only
 * {@code bolo devices add} makes a new one, the others report that there is none where they looked.
 * Stateless.
 */
final class LedgerEnvironment {

  /** An operator command is its own composition root: it reads the machine's own time. */
  private static final LedgerTime SYSTEM_TIME =
      new LedgerTime(Clock.systemUTC(), System::nanoTime, System::nanoTime);

  /** Whether a command may make the ledger when there is none yet. */
  enum Access {
    /** Makes the data directory and the ledger when they are missing: the first device. */
    CREATE,
    /** Reports a missing ledger instead of making an empty one where nobody will look. */
    EXISTING
  }

  private static final String SQLITE = "jdbc:sqlite:";

  /** The server's default {@code BOLO_DATA_DIR}, relative to the working directory. */
  private static final String DEFAULT_DATA_DIR =
      Objects.requireNonNull(Variable.BOLO_DATA_DIR.defaultValue(), "BOLO_DATA_DIR has a default");

  private LedgerEnvironment() {}

  /**
   * Runs {@code work} on the ledger and closes it; returns what {@code work} returns, or reports on
   * {@code err} in one line and returns {@link ExitCode#USAGE} for a malformed variable and {@link
   * ExitCode#FAILED} for a ledger that is not there or cannot be opened.
   *
   * @param dataDir {@code --data-dir}, which replaces {@code BOLO_DATA_DIR}; null when not given
   */
  static int withLedger(
      Map<String, String> env,
      @Nullable Path dataDir,
      Access access,
      PrintWriter err,
      Function<DurableLedger, Integer> work) {
    Map<String, String> effective = new HashMap<>(env);
    if (dataDir != null) {
      effective.put("BOLO_DATA_DIR", dataDir.toString());
    }
    LedgerConfig config;
    try {
      config = ServerConfig.fromMap(effective).ledger();
    } catch (IllegalArgumentException e) {
      err.println("bolo: " + e.getMessage());
      return ExitCode.USAGE.code();
    }
    Path file = embeddedFile(config);
    String where = file != null ? file.toString() : describedUrl(config);
    boolean exists = file == null || Files.exists(file);
    if (!exists && access == Access.EXISTING) {
      err.println(
          "bolo: no ledger at "
              + where
              + " ("
              + origin(config, dataDir)
              + "); point at the gateway's with --data-dir DIR or BOLO_DATA_DIR=DIR, the"
              + " directory bolo serve runs with (bolo devices add makes a new one)");
      return ExitCode.FAILED.code();
    }
    err.println("ledger: " + where + (exists ? "" : " (new)"));
    err.flush();
    try (DurableLedger ledger = Ledger.jdbc(config, SYSTEM_TIME)) {
      return work.apply(ledger);
    } catch (LedgerException e) {
      err.println("bolo: ledger unavailable: " + e.getMessage());
      return ExitCode.FAILED.code();
    } catch (IllegalArgumentException e) {
      // e.g. BOLO_DATABASE_URL names a database the ledger does not support
      err.println("bolo: " + e.getMessage());
      return ExitCode.USAGE.code();
    }
  }

  /** The SQLite file the ledger lives in, absolute; null for a database server. */
  static @Nullable Path embeddedFile(LedgerConfig config) {
    String url = config.effectiveJdbcUrl();
    if (!url.startsWith(SQLITE)) {
      return null;
    }
    String name = url.substring(SQLITE.length());
    int query = name.indexOf('?');
    name = query < 0 ? name : name.substring(0, query);
    // An in-memory database or a file: URI is not a plain path to look for.
    if (name.isEmpty() || name.startsWith(":") || name.startsWith("file:")) {
      return null;
    }
    return Path.of(name).toAbsolutePath().normalize();
  }

  private static String describedUrl(LedgerConfig config) {
    String url = LedgerConfig.redactedUrl(config.effectiveJdbcUrl());
    return url == null ? "(none)" : url;
  }

  /** What named the data directory, for the message that the ledger is not there. */
  private static String origin(LedgerConfig config, @Nullable Path dataDir) {
    if (dataDir != null) {
      return "from --data-dir";
    }
    if (config.jdbcUrl() != null) {
      return "from BOLO_DATABASE_URL";
    }
    return config.dataDir().equals(Path.of(DEFAULT_DATA_DIR))
        ? "BOLO_DATA_DIR is not set, so ./" + DEFAULT_DATA_DIR + " under the current directory"
        : "from BOLO_DATA_DIR";
  }
}
