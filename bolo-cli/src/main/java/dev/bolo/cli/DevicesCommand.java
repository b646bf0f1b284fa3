package dev.bolo.cli;

import dev.bolo.cli.LedgerEnvironment.Access;
import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.DeviceInfo;
import dev.bolo.server.ledger.DurableLedger;
import dev.bolo.server.ledger.Enrollment;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * {@code bolo devices}: add, list and revoke devices, set their quota and rotate their webhook
 * signing secrets, in the ledger named by the environment. Changes reach a running server at once.
 * Not thread safe (one per invocation).
 */
@Command(
    name = "devices",
    mixinStandardHelpOptions = true,
    description =
        "Add, list and revoke devices, set their free-trial quota and rotate their webhook"
            + " signing secrets.")
public final class DevicesCommand implements Callable<Integer> {

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm'Z'").withZone(ZoneOffset.UTC);

  private final Map<String, String> env;

  @SuppressWarnings("NullAway.Init") // injected by picocli before any command method runs
  @Spec
  private CommandSpec spec;

  @Option(
      names = "--data-dir",
      paramLabel = "DIR",
      scope = ScopeType.INHERIT,
      description =
          "The gateway's data directory, where its ledger is (default: $BOLO_DATA_DIR, else"
              + " bolo-data under the current directory). A systemd install's is /var/lib/bolo.")
  private @Nullable Path dataDir;

  /** Reads the process environment. */
  public DevicesCommand() {
    this(System.getenv());
  }

  /** Reads {@code env} instead of the process environment. */
  public DevicesCommand(Map<String, String> env) {
    this.env = Map.copyOf(env);
  }

  @Override
  public Integer call() {
    // A bare "bolo devices" is a question about usage, not an error.
    spec.commandLine().usage(out());
    return 0;
  }

  @Command(
      name = "add",
      mixinStandardHelpOptions = true,
      description =
          "Add a device and print its webhook signing secret and its token (the last line);"
              + " both are shown only once.")
  int add(@Parameters(paramLabel = "NAME", description = "letters, digits, . _ -") String name) {
    if (!Device.isValidName(name)) {
      throw usageError("add", "a device name is 1-64 letters, digits, '.', '_' or '-': " + name);
    }
    return withLedger(
        Access.CREATE,
        ledger ->
            switch (ledger.add(new Device(name))) {
              case Enrollment.Enrolled enrolled -> {
                out().println("Added device " + name + ".");
                out()
                    .println(
                        "Its webhook signing secret (receivers verify jobs' webhooks with it):");
                out().println(enrolled.webhookSecret());
                // The token stays the last line: scripts read it there (PROTOCOL, "Running it").
                out().println("Its token, shown only this once:");
                out().println(enrolled.token());
                yield 0;
              }
              case Enrollment.NameTaken taken -> {
                err().println("bolo: a device named " + taken.name() + " exists already");
                yield ExitCode.REFUSED.code();
              }
            });
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "List every device, its quota and what it has used.")
  int list() {
    return withLedger(
        Access.EXISTING,
        ledger -> {
          List<DeviceInfo> devices = ledger.devices();
          if (devices.isEmpty()) {
            out().println("No devices yet. Add one with: bolo devices add NAME");
            return 0;
          }
          String row = "%-24s %-8s %-18s %-22s %12s  %s%n";
          out().printf(row, "NAME", "STATUS", "CREATED", "QUOTA", "CHARGED_S", "TOKEN");
          for (DeviceInfo device : devices) {
            out()
                .printf(
                    row,
                    device.name(),
                    device.isRevoked() ? "revoked" : "active",
                    TIME.format(device.created()),
                    Format.quota(device.quotaMillis())
                        // The trial is named only where it limits: BOLO_TRIAL_SECONDS=0 is none.
                        + (device.quotaOverrideMillis() == null && device.quotaMillis() > 0
                            ? " (trial)"
                            : ""),
                    Format.seconds(device.chargedMillis()),
                    device.configuredOnly() ? "BOLO_DEVICE_TOKENS" : "ledger");
          }
          return 0;
        });
  }

  @Command(
      name = "revoke",
      mixinStandardHelpOptions = true,
      description = "Revoke a device: its token stops working at once.")
  int revoke(@Parameters(paramLabel = "NAME") String name) {
    return withLedger(
        Access.EXISTING,
        ledger -> {
          if (!ledger.revoke(name)) {
            err().println("bolo: no device named " + name);
            return ExitCode.REFUSED.code();
          }
          out().println("Revoked device " + name + "; its token no longer works.");
          return 0;
        });
  }

  @Command(
      name = "rotate-secret",
      mixinStandardHelpOptions = true,
      description =
          "Make a new webhook signing secret for a device and print it (the last line); the old"
              + " one goes on signing beside it for 24 hours.")
  int rotateSecret(@Parameters(paramLabel = "NAME") String name) {
    return withLedger(
        Access.EXISTING,
        ledger -> {
          var secret = ledger.rotateWebhookSecret(name);
          if (secret.isEmpty()) {
            err().println("bolo: no device named " + name);
            return ExitCode.REFUSED.code();
          }
          out()
              .println(
                  "New webhook signing secret of device "
                      + name
                      + "; the old one also signs for 24 hours, until receivers use this one:");
          out().println(secret.get());
          return 0;
        });
  }

  @Command(
      name = "quota",
      mixinStandardHelpOptions = true,
      description =
          "Set how many seconds of audio a device may have transcribed in all (0 = unlimited).")
  int quota(
      @Parameters(paramLabel = "NAME") String name,
      @Parameters(paramLabel = "SECONDS") long seconds) {
    if (seconds < 0) {
      throw usageError("quota", "SECONDS must be >= 0 (0 = unlimited): " + seconds);
    }
    return withLedger(
        Access.EXISTING,
        ledger -> {
          if (!ledger.setQuota(name, seconds)) {
            err().println("bolo: no device named " + name);
            return ExitCode.REFUSED.code();
          }
          out()
              .println(
                  "Device "
                      + name
                      + " may now have "
                      + Format.quota(seconds * 1000)
                      + " of audio transcribed in all.");
          return 0;
        });
  }

  /** A usage mistake in subcommand {@code name}, which names that subcommand's help. */
  private ParameterException usageError(String name, String message) {
    CommandLine subcommand = spec.subcommands().get(name);
    return new ParameterException(subcommand == null ? spec.commandLine() : subcommand, message);
  }

  private int withLedger(Access access, Function<DurableLedger, Integer> work) {
    return LedgerEnvironment.withLedger(env, dataDir, access, err(), work);
  }

  private PrintWriter out() {
    return spec.commandLine().getOut();
  }

  private PrintWriter err() {
    return spec.commandLine().getErr();
  }
}
