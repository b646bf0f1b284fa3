package dev.bolo.bench;

import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * {@link GatewayLoad}'s command-line options: {@code --NAME VALUE} pairs, each with a default.
 *
 * @param targets the rows measured each round, in order: {@code direct}, {@code nginx}, {@code
 *     gateway}
 * @param baseline another checkout whose gateway is measured too, as the row {@code baseline}
 * @param timeoutSeconds how long the load generator waits for one answer
 * @param generator {@code wrk}, or {@code java} for {@link JavaLoad}
 * @param devices how many devices the load stands for: connection {@code i} uses device {@code i %
 *     devices}'s token (more than one only with {@code --generator java})
 * @param warmupConnections the connections of the unmeasured warm-up
 * @param rows {@code all} (or a comma-separated choice of {@code warm,cold,inflight,large}) runs
 *     {@link GatewaySuite}'s rows, each with its own settings, instead of the one shape the other
 *     options describe; empty for that one shape
 */
record GatewayLoadOptions(
    int connections,
    int noteKb,
    int seconds,
    int rounds,
    long delayMillis,
    int attackers,
    int copies,
    int stormNotes,
    int warmupSeconds,
    String heap,
    List<String> targets,
    @Nullable Path baseline,
    int timeoutSeconds,
    String generator,
    int devices,
    int warmupConnections,
    List<String> rows) {

  /**
   * How long the SDK waits for the answer to a note this long (its read timeout: 30 s plus half the
   * note, at most 120 s): wrk gives up on a request no sooner than a phone would. The notes are 16
   * kHz 16-bit mono WAV, 32,000 bytes a second.
   */
  static int sdkReadTimeoutSeconds(int noteKb) {
    long noteSeconds = noteKb * 1000L / 32_000;
    return (int) Math.min(120, 30 + noteSeconds / 2);
  }

  private static final List<String> NAMES =
      List.of(
          "--connections",
          "--note-kb",
          "--seconds",
          "--rounds",
          "--delay-ms",
          "--attackers",
          "--copies",
          "--storm-notes",
          "--warmup",
          "--heap",
          "--targets",
          "--baseline",
          "--timeout",
          "--generator",
          "--devices",
          "--warmup-connections",
          "--rows");

  /** The same options for another shape of load (a row of {@link GatewaySuite}). */
  GatewayLoadOptions shaped(
      int connections,
      int noteKb,
      long delayMillis,
      int warmupSeconds,
      String heap,
      List<String> targets,
      int timeoutSeconds,
      String generator,
      int devices,
      int warmupConnections) {
    return new GatewayLoadOptions(
        connections,
        noteKb,
        seconds,
        rounds,
        delayMillis,
        0,
        1,
        stormNotes,
        warmupSeconds,
        heap,
        targets,
        baseline,
        timeoutSeconds,
        generator,
        devices,
        warmupConnections,
        List.of());
  }

  static GatewayLoadOptions parse(String[] args) {
    BenchArgs given = BenchArgs.parse(args);
    String baseline = given.optional("--baseline");
    GatewayLoadOptions options =
        new GatewayLoadOptions(
            given.integer("--connections", 50),
            given.integer("--note-kb", 200),
            given.integer("--seconds", 10),
            given.integer("--rounds", 3),
            given.longInteger("--delay-ms", 0),
            given.integer("--attackers", 0),
            given.integer("--copies", 4),
            given.integer("--storm-notes", 100),
            given.integer("--warmup", 60),
            given.text("--heap", "512m"),
            given.list("--targets", "direct,nginx,gateway"),
            baseline == null ? null : Path.of(baseline),
            given.integer("--timeout", sdkReadTimeoutSeconds(given.integer("--note-kb", 200))),
            given.text("--generator", "wrk"),
            given.integer("--devices", 1),
            given.integer("--warmup-connections", given.integer("--connections", 50)),
            given.text("--rows", "").isEmpty() ? List.of() : given.list("--rows", ""));
    if (!List.of("wrk", "java").contains(options.generator())) {
      throw new IllegalArgumentException("--generator is wrk or java: " + options.generator());
    }
    if (options.devices() > 1 && !options.generator().equals("java")) {
      throw new IllegalArgumentException("--devices above 1 needs --generator java");
    }
    String unknown = given.unknownName(NAMES);
    if (unknown != null) {
      throw new IllegalArgumentException("unknown option: " + unknown);
    }
    return options;
  }
}
