package dev.bolo.cli;

import dev.bolo.server.ServerConfig;
import dev.bolo.server.ledger.DurableLedger;
import dev.bolo.server.ledger.Ledger;
import dev.bolo.server.ledger.LedgerConfig;
import dev.bolo.server.ledger.LedgerException;
import java.io.PrintWriter;
import java.util.Map;
import java.util.function.Function;

/**
 * Opens the ledger the gateway uses, named by the same environment variables ({@code
 * BOLO_DATABASE_URL}, {@code BOLO_DATA_DIR}, {@code BOLO_DEVICE_TOKENS}, {@code
 * BOLO_TRIAL_SECONDS}), so operator commands see and change what the running server sees.
 */
final class LedgerEnvironment {

  private LedgerEnvironment() {}

  /**
   * Runs {@code work} on the ledger and closes it; a malformed variable ({@link ExitCode#USAGE}) or
   * an unreachable database ({@link ExitCode#FAILED}) is reported on {@code err} as one line.
   */
  static int withLedger(
      Map<String, String> env, PrintWriter err, Function<DurableLedger, Integer> work) {
    LedgerConfig config;
    try {
      config = ServerConfig.fromMap(env).ledger();
    } catch (IllegalArgumentException e) {
      err.println("bolo: " + e.getMessage());
      return ExitCode.USAGE.code();
    }
    try (DurableLedger ledger = Ledger.jdbc(config)) {
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
}
