package dev.bolo.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.testkit.Directories;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A long note through the OpenAI engine at {@link LongNoteProvider} (0.2 s per minute of audio,
 * OpenAI's 25 MB cap), each row on a fresh {@code ./bolo serve}: the note whole with the cap
 * lifted, then in pieces with 1, 4 and 8 of them in flight ({@code BOLO_MAX_PIECES_PER_NOTE}); then
 * one piece failing once and the note resent (provider calls = pieces + 1, one charge), then the
 * note asked in five formats (provider calls = pieces). Columns: wall time of the upload's answer,
 * the gateway's CPU seconds, provider calls, the largest request, requests refused over the cap,
 * the seconds charged.
 *
 * <p>Usage: {@code PiecesBench NOTE.wav} (make it with {@code bolo-bench/accuracy/make-long-note.sh
 * 60}).
 */
public final class PiecesBench {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "bench-pieces-token-0123456789";
  private static final String ADMIN = "bench-admin-token-0123456789";

  private PiecesBench() {}

  public static void main(String[] args) throws Exception {
    Path root = Path.of(System.getProperty("bolo.root", ".")).toAbsolutePath();
    Path note = Path.of(args[0]);
    StringBuilder report = new StringBuilder("# Long notes in pieces\n\n");
    report.append(BenchRun.machineLines(root));
    report.append(
        String.format(
            Locale.ROOT,
            "- note: %s, %d bytes; stand-in: 0.2 s per minute of audio, 25 MB cap%n%n",
            note.getFileName(),
            Files.size(note)));
    report.append(
        "| run | wall | gateway CPU | provider calls | largest request | over the cap | charged |\n");
    report.append("|---|---|---|---|---|---|---|\n");
    report.append(row(root, note, "whole, cap lifted", 0, false, List.of("json")));
    for (int perNote : new int[] {1, 4, 8}) {
      report.append(
          row(root, note, "pieces, " + perNote + " in flight", perNote, false, List.of("json")));
    }
    report.append(row(root, note, "pieces, 8 in flight, call 2 fails once", 8, true, List.of()));
    report.append(
        row(
            root,
            note,
            "pieces, 8 in flight, 5 formats",
            8,
            false,
            List.of("json", "text", "srt", "vtt", "verbose_json")));
    System.out.print(report);
    BenchRun.writeResults(root, "pieces", report);
  }

  /**
   * One row on a fresh gateway: {@code perNote} 0 sends the note whole (cap lifted); {@code
   * failOnce} makes the provider's second call fail and resends the note once after the failure.
   */
  private static String row(
      Path root, Path note, String name, int perNote, boolean failOnce, List<String> formats)
      throws Exception {
    boolean whole = perNote == 0;
    Path work = Files.createTempDirectory("bolo-pieces-");
    List<Process> processes = new ArrayList<>();
    try (LongNoteProvider provider =
        new LongNoteProvider(whole ? Long.MAX_VALUE : LongNoteProvider.OPENAI_CAP, 0.2)) {
      if (failOnce) {
        provider.failCall(2);
      }
      int port = BenchRun.freePort();
      Map<String, String> extra =
          new java.util.HashMap<>(
              Map.of(
                  "BOLO_ADMIN_TOKEN", ADMIN,
                  "BOLO_MAX_UPLOAD_BYTES", "536870912",
                  "BOLO_UPSTREAM_TIMEOUT_MAX", "30m"));
      if (whole) {
        extra.put("BOLO_OPENAI_MAX_REQUEST_BYTES", Long.toString(Long.MAX_VALUE));
      } else {
        extra.put("BOLO_MAX_PIECES_PER_NOTE", Integer.toString(perNote));
      }
      Process gateway =
          BenchRun.startGateway(root, work, port, provider.port(), "bench=" + TOKEN, "1g", extra);
      processes.add(gateway);
      BenchRun.awaitReady(port);
      HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      long cpuBefore = ProcessStats.cpuMillis(gatewayPid(gateway));
      long started = System.nanoTime();
      int status = 0;
      String body = "";
      List<String> asked = formats.isEmpty() ? List.of("json", "json") : formats;
      for (String format : asked) {
        HttpResponse<String> answer =
            client.send(upload(port, note, format), HttpResponse.BodyHandlers.ofString());
        status = answer.statusCode();
        body = answer.body();
        if (status != 200 && !failOnce) {
          break;
        }
      }
      double wall = (System.nanoTime() - started) / 1e9;
      double cpu = (ProcessStats.cpuMillis(gatewayPid(gateway)) - cpuBefore) / 1000.0;
      // The charge is written behind the answer: wait for it a little.
      String charged = charged(client, port);
      for (int i = 0;
          i < 50 && !failedOnly(status, failOnce) && charged.matches("0(\\.0+)?");
          i++) {
        Thread.sleep(100);
        charged = charged(client, port);
      }
      return String.format(
          Locale.ROOT,
          "| %s | %.1f s%s | %.1f s | %d | %.1f MB | %d | %s s |%n",
          name,
          wall,
          status == 200
              ? ""
              : " (" + status + ": " + body.substring(0, Math.min(80, body.length())) + ")",
          cpu,
          provider.calls.get(),
          provider.largestRequest.get() / 1e6,
          provider.refusedOverCap.get(),
          charged);
    } finally {
      BenchRun.stopAll(processes);
      Directories.deleteTree(work);
    }
  }

  private static boolean failedOnly(int status, boolean failOnce) {
    return status != 200 && !failOnce;
  }

  /** The JVM under {@code ./bolo serve}: the launcher's only descendant that is a java process. */
  private static long gatewayPid(Process launcher) {
    return launcher
        .descendants()
        .filter(p -> p.info().command().orElse("").endsWith("java"))
        .map(ProcessHandle::pid)
        .findFirst()
        .orElse(launcher.pid());
  }

  private static HttpRequest upload(int port, Path note, String format) throws Exception {
    String boundary = "bench-pieces-boundary";
    byte[] head =
        ("--"
                + boundary
                + "\r\nContent-Disposition: form-data; name=\"response_format\"\r\n\r\n"
                + format
                + "\r\n--"
                + boundary
                + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"note.wav\"\r\n"
                + "Content-Type: audio/wav\r\n\r\n")
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    byte[] tail =
        ("\r\n--" + boundary + "--\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    return HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + port + "/v1/audio/transcriptions"))
        .timeout(Duration.ofMinutes(30))
        .header("Authorization", "Bearer " + TOKEN)
        .header("Content-Type", "multipart/form-data; boundary=" + boundary)
        .POST(
            HttpRequest.BodyPublishers.concat(
                HttpRequest.BodyPublishers.ofByteArray(head),
                HttpRequest.BodyPublishers.ofFile(note),
                HttpRequest.BodyPublishers.ofByteArray(tail)))
        .build();
  }

  /** The device's charged seconds, from the admin API. */
  private static String charged(HttpClient client, int port) throws Exception {
    HttpResponse<String> devices =
        client.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/admin/api/devices"))
                .header("Authorization", "Bearer " + ADMIN)
                .build(),
            HttpResponse.BodyHandlers.ofString());
    for (JsonNode device : JSON.readTree(devices.body()).path("devices")) {
      if (device.path("name").asText().equals("bench")) {
        return device.path("charged_seconds").asText("?");
      }
    }
    return "?";
  }
}
