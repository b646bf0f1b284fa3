package dev.bolo.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bolo.server.ledger.DeviceUsage;
import dev.bolo.server.ledger.UsageQuery;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code bolo usage}: per device, how many requests were answered, and each of them in one column:
 * transcribed by its own work, a resend that de-duplication answered for free, or failed; the
 * distinct notes, and the audio seconds charged and saved. Not thread safe (one per invocation).
 */
@Command(
    name = "usage",
    mixinStandardHelpOptions = true,
    description = "Show requests, replays and the audio seconds charged and saved per device.")
public final class UsageCommand implements Callable<Integer> {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<String, String> env;
  private final ZoneId zone;

  @SuppressWarnings("NullAway.Init") // injected by picocli before any command method runs
  @Spec
  private CommandSpec spec;

  @Option(names = "--device", paramLabel = "NAME", description = "Only this device.")
  private @Nullable String device;

  @Option(
      names = "--since",
      paramLabel = "DATE",
      description =
          "Only requests answered from this day (2026-12-01, local time) or instant on. Days"
              + " older than BOLO_USAGE_RETENTION are daily totals, counted from their UTC"
              + " midnight.")
  private @Nullable String since;

  @Option(names = "--json", description = "Print JSON instead of a table.")
  private boolean json;

  @Option(
      names = "--data-dir",
      paramLabel = "DIR",
      description =
          "The gateway's data directory, where its ledger is (default: $BOLO_DATA_DIR, else"
              + " bolo-data under the current directory). A systemd install's is /var/lib/bolo.")
  private @Nullable Path dataDir;

  /** Reads the process environment; days start at local midnight. */
  public UsageCommand() {
    this(System.getenv(), ZoneId.systemDefault());
  }

  /** Reads {@code env}; a {@code --since} day starts at midnight in {@code zone}. */
  public UsageCommand(Map<String, String> env, ZoneId zone) {
    this.env = Map.copyOf(env);
    this.zone = zone;
  }

  @Override
  public Integer call() {
    Instant from;
    try {
      from = since == null ? null : parseSince(since, zone);
    } catch (DateTimeParseException e) {
      throw new ParameterException(
          spec.commandLine(),
          "--since takes a date (2026-12-01) or an instant (2026-12-01T08:00:00Z): " + since);
    }
    UsageQuery query = new UsageQuery(device, from);
    return LedgerEnvironment.withLedger(
        env,
        dataDir,
        LedgerEnvironment.Access.EXISTING,
        err(),
        ledger -> {
          List<DeviceUsage> rows = ledger.usage(query);
          if (json) {
            out().println(asJson(rows, from));
          } else {
            printTable(rows);
          }
          return 0;
        });
  }

  /** A day (midnight in {@code zone}), or an instant with an offset. */
  static Instant parseSince(String text, ZoneId zone) {
    if (text.contains("T")) {
      return OffsetDateTime.parse(text).toInstant();
    }
    return LocalDate.parse(text).atStartOfDay(zone).toInstant();
  }

  private void printTable(List<DeviceUsage> rows) {
    if (rows.isEmpty()) {
      out().println("No requests recorded" + (device == null ? "" : " for " + device) + ".");
      return;
    }
    // Every request is in one of TRANSCRIBED, REPLAYS and FAILED; UNIQUE counts notes.
    String format = "%-24s %9s %12s %8s %7s %7s %11s %10s %10s%n";
    out()
        .printf(
            format,
            "DEVICE",
            "REQUESTS",
            "TRANSCRIBED",
            "REPLAYS",
            "FAILED",
            "UNIQUE",
            "REDUNDANCY",
            "CHARGED_S",
            "SAVED_S");
    rows.forEach(row -> printRow(format, row));
    if (rows.size() > 1) {
      printRow(format, total(rows));
    }
  }

  private void printRow(String format, DeviceUsage row) {
    out()
        .printf(
            format,
            row.device(),
            row.requests(),
            row.transcribed(),
            row.replays(),
            row.failed(),
            row.uniqueNotes(),
            String.format(Locale.ROOT, "%.1f%%", row.redundancyRate() * 100),
            Format.seconds(row.chargedMillis()),
            Format.seconds(row.savedMillis()));
  }

  private static DeviceUsage total(List<DeviceUsage> rows) {
    return rows.stream()
        .reduce(new DeviceUsage("TOTAL", 0, 0, 0, 0, 0, 0), (sum, row) -> sum.plus(row, "TOTAL"));
  }

  private static String asJson(List<DeviceUsage> rows, @Nullable Instant from) {
    ObjectNode root = JSON.createObjectNode();
    root.put("since", from == null ? null : from.toString());
    ArrayNode devices = root.putArray("devices");
    rows.forEach(row -> put(devices.addObject(), row));
    ObjectNode total = root.putObject("total");
    put(total, total(rows));
    total.remove("device");
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a tree of numbers and strings always serialises", e);
    }
  }

  private static void put(ObjectNode node, DeviceUsage row) {
    node.put("device", row.device());
    node.put("requests", row.requests());
    node.put("transcribed", row.transcribed());
    node.put("replays", row.replays());
    node.put("failed", row.failed());
    node.put("unique_notes", row.uniqueNotes());
    node.put("redundancy_rate", row.redundancyRate());
    node.put("seconds_charged", row.chargedMillis() / 1000.0);
    node.put("seconds_saved", row.savedMillis() / 1000.0);
  }

  private PrintWriter out() {
    return spec.commandLine().getOut();
  }

  private PrintWriter err() {
    return spec.commandLine().getErr();
  }
}
