package dev.bolo.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Sends the load of one run: {@code --connections} connections uploading unique notes to one target
 * for a given time, from Debian's {@code wrk} (its own process, with the {@code unique-notes.lua}
 * script) or, with {@code --generator java}, from {@link JavaLoad} in this process. Used by one
 * thread at a time.
 */
final class LoadGenerator {

  private static final Pattern RESULT = Pattern.compile("RESULT (.*)");

  private final Path script;
  private final Path body;
  private final byte[] bodyBytes;
  private final GatewayLoadOptions options;

  private LoadGenerator(Path script, Path body, byte[] bodyBytes, GatewayLoadOptions options) {
    this.script = script;
    this.body = body;
    this.bodyBytes = bodyBytes;
    this.options = options;
  }

  /** Writes wrk's script and the upload template into {@code work}. */
  static LoadGenerator prepare(Path work, GatewayLoadOptions options) throws IOException {
    Path script = work.resolve("unique-notes.lua");
    try (InputStream in = LoadGenerator.class.getResourceAsStream("unique-notes.lua")) {
      Files.write(script, in.readAllBytes());
    }
    Path body = work.resolve("body.bin");
    byte[] bodyBytes = UploadTemplate.body(options.noteKb() * 1024);
    Files.write(body, bodyBytes);
    return new LoadGenerator(script, body, bodyBytes, options);
  }

  /**
   * Loads {@code url} for {@code seconds}, every request with {@code token} when there is one.
   *
   * @param tag the run's name (say {@code r2}), the start of the nonce that keeps its notes apart
   */
  LoadResult run(String url, @Nullable String token, int seconds, String tag) throws Exception {
    return run(url, token, seconds, tag, options.connections());
  }

  /**
   * Loads {@code url} as {@link #run(String, String, int, String)} does, over {@code connections}
   * connections; with {@code --devices} above 1, connection {@code i} sends as device {@code i %
   * devices} ({@link LoadTargets#deviceToken}) wherever {@code token} is given.
   */
  LoadResult run(String url, @Nullable String token, int seconds, String tag, int connections)
      throws Exception {
    // The nonce keeps notes of different rounds and targets apart: 8 characters.
    String nonce = String.format("%-8s", tag + Long.toString(System.nanoTime() % 100_000, 36));
    nonce = nonce.replace(' ', 'x').substring(0, 8);
    if (options.generator().equals("java")) {
      long before = ProcessStats.selfCpuMillis();
      List<String> tokens = new ArrayList<>();
      for (int d = 0; token != null && d < options.devices(); d++) {
        tokens.add(d == 0 ? token : LoadTargets.deviceToken(d));
      }
      LoadResult result =
          JavaLoad.run(
              bodyBytes,
              UploadTemplate.CONTENT_TYPE,
              url,
              tokens,
              connections,
              seconds,
              options.timeoutSeconds(),
              nonce);
      // The harness's own process sends: its whole CPU time counts, a little more than JavaLoad's.
      return result.withCpuMillis(LoadResult.GENERATOR, ProcessStats.selfCpuMillis() - before);
    }
    long before = ProcessStats.endedChildrenCpuMillis();
    LoadResult result = wrk(url, token, seconds, nonce, connections);
    return result.withCpuMillis(
        LoadResult.GENERATOR, ProcessStats.endedChildrenCpuMillis() - before);
  }

  private LoadResult wrk(
      String url, @Nullable String token, int seconds, String nonce, int connections)
      throws Exception {
    List<String> command =
        List.of(
            "wrk",
            "-t2",
            "-c" + connections,
            "-d" + seconds + "s",
            "--timeout",
            options.timeoutSeconds() + "s",
            "-s",
            script.toString(),
            url,
            "--",
            body.toString(),
            nonce,
            UploadTemplate.BOUNDARY,
            token == null ? "" : token);
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    process.waitFor();
    Matcher matcher = RESULT.matcher(out);
    if (!matcher.find()) {
      throw new IllegalStateException("wrk printed no result:\n" + out);
    }
    Map<String, Long> values = new HashMap<>();
    for (String pair : matcher.group(1).trim().split(" ")) {
      String[] kv = pair.split("=");
      values.put(kv[0], Long.parseLong(kv[1]));
    }
    return new LoadResult(
        values.getOrDefault("requests", 0L),
        values.getOrDefault("duration_us", 0L),
        values.getOrDefault("p50_us", 0L),
        values.getOrDefault("p99_us", 0L),
        values.getOrDefault("status", 0L),
        values.getOrDefault("timeout", 0L),
        values.getOrDefault("connect", 0L)
            + values.getOrDefault("read", 0L)
            + values.getOrDefault("write", 0L),
        Map.of());
  }
}
