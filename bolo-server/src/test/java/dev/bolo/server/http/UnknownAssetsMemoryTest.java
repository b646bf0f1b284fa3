package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.GatewayProcess;
import dev.bolo.server.testing.RawAnswer;
import dev.bolo.server.testing.TestAudio;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Asking for files the pages do not have costs the gateway nothing it keeps: a gateway in its own
 * JVM with a 128 MiB heap answers 30,000 distinct names of 2 KB each with 404, its live heap after
 * a full collection is what it was before them, and a note is transcribed right after. Were a miss
 * remembered, the names alone would be 60 MB, seven times what the live heap may grow by.
 */
class UnknownAssetsMemoryTest {

  private static final int NAMES = 30_000;
  private static final int NAME_CHARS = 2048;

  /** Each on its own keep-alive connection, sending requests in batches without waiting. */
  private static final int CONNECTIONS = 4;

  private static final int BATCH = 50;

  /**
   * What the live heap may grow by, for the gateway's own bounded state: Jetty's cache of the
   * filter chains of up to 1,024 paths (2 MB with names this long), buffer pools, meters.
   * Remembering the names would take 7 times as much, and 4,000 of them would pass it.
   */
  private static final long HEAP_GROWTH_ALLOWED_BYTES = 8L * 1024 * 1024;

  /** A row of the histogram: {@code 1: 1234 567890 java.lang.String (java.base)}. */
  private static final Pattern HISTOGRAM_ROW =
      Pattern.compile("\\s*\\d+:\\s+\\d+\\s+(\\d+)\\s+(\\S+).*");

  private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

  @TempDir Path dir;

  @Test
  void thirtyThousandUnknownAssetNamesLeaveTheHeapAsItWasAndANoteIsTranscribedAfter()
      throws Exception {
    try (FakeProvider provider = new FakeProvider();
        GatewayProcess gateway =
            GatewayProcess.startWithHeap(
                Gateway.openAiEnvironment(provider, dir.resolve("data")),
                dir.resolve("gateway.log"),
                "128m")) {
      Random random = new Random(45);
      // A first round lets the gateway make what it makes once (compiled code, pooled buffers).
      askForUnknownAssets(gateway, random, NAMES / 20);
      long before = liveHeapBytes(gateway.pid());

      askForUnknownAssets(gateway, random, NAMES);
      long after = liveHeapBytes(gateway.pid());

      assertThat(gateway.isAlive()).isTrue();
      assertThat(after - before)
          .as("live heap before %d bytes, after %d bytes", before, after)
          .isLessThan(HEAP_GROWTH_ALLOWED_BYTES);
      OkHttpClient client = new OkHttpClient.Builder().readTimeout(60, TimeUnit.SECONDS).build();
      Request note =
          Gateway.nativeUploadRequest(
              gateway.url("/v1/transcriptions"), Gateway.TOKEN_A, TestAudio.wav(500, 1));
      try (Response response = client.newCall(note).execute()) {
        assertThat(response.code()).as(response.body().string()).isEqualTo(200);
      }
      assertThat(provider.calls()).isEqualTo(1);
    }
  }

  /** Asks for {@code count} distinct names no page has, each answered 404. */
  private static void askForUnknownAssets(GatewayProcess gateway, Random random, int count)
      throws Exception {
    List<List<String>> perConnection = new ArrayList<>();
    for (int c = 0; c < CONNECTIONS; c++) {
      List<String> names = new ArrayList<>();
      for (int i = c; i < count; i += CONNECTIONS) {
        names.add(randomName(random));
      }
      perConnection.add(names);
    }
    int port = gateway.port();
    ExecutorService connections = Executors.newFixedThreadPool(CONNECTIONS);
    try {
      List<Future<Integer>> answered = new ArrayList<>();
      for (List<String> names : perConnection) {
        answered.add(connections.submit(() -> askOnOneConnection(port, names)));
      }
      int total = 0;
      for (Future<Integer> one : answered) {
        total += one.get(10, TimeUnit.MINUTES);
      }
      assertThat(total).isEqualTo(count);
    } finally {
      connections.shutdownNow();
    }
  }

  /** The names on one keep-alive connection; how many were answered 404. */
  private static int askOnOneConnection(int port, List<String> names) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(60_000);
      OutputStream out = socket.getOutputStream();
      InputStream in = new BufferedInputStream(socket.getInputStream());
      int answered = 0;
      for (int start = 0; start < names.size(); start += BATCH) {
        List<String> batch = names.subList(start, Math.min(names.size(), start + BATCH));
        ByteArrayOutputStream requests = new ByteArrayOutputStream();
        for (String name : batch) {
          requests.writeBytes(
              ("GET /assets/" + name + " HTTP/1.1\r\nHost: bolo\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
        }
        requests.writeTo(out);
        out.flush();
        for (int i = 0; i < batch.size(); i++) {
          assertThat(RawAnswer.read(in).status())
              .as("answer %d on this connection", answered)
              .isEqualTo(404);
          answered++;
        }
      }
      return answered;
    }
  }

  private static String randomName(Random random) {
    StringBuilder name = new StringBuilder(NAME_CHARS);
    for (int i = 0; i < NAME_CHARS - 3; i++) {
      name.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
    }
    return name.append(".js").toString();
  }

  /**
   * The bytes of every live object of the process {@code pid}, counted by {@code jcmd
   * GC.class_histogram} after the full collection it runs first; the fillers the JVM writes over
   * unused heap to keep it walkable are not objects of the gateway and are left out.
   */
  private static long liveHeapBytes(long pid) throws IOException, InterruptedException {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Process histogram =
        new ProcessBuilder(jcmd.toString(), Long.toString(pid), "GC.class_histogram")
            .redirectErrorStream(true)
            .start();
    String output = new String(histogram.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(histogram.waitFor(60, TimeUnit.SECONDS)).as(output).isTrue();
    assertThat(histogram.exitValue()).as(output).isZero();
    long bytes = 0;
    int rows = 0;
    for (String line : output.split("\n")) {
      Matcher row = HISTOGRAM_ROW.matcher(line);
      if (row.matches() && !row.group(2).contains("FillerElement")) {
        bytes += Long.parseLong(row.group(1));
        rows++;
      }
    }
    assertThat(rows).as(output).isPositive();
    return bytes;
  }
}
