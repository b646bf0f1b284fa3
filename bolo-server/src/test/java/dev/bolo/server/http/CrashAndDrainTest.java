package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.ledger.LedgerConfig;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.GatewayProcess;
import dev.bolo.server.testing.LedgerProbe;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A gateway process killed the way an operating system kills ({@code kill -9}) or stopped the way
 * an orchestrator stops it (SIGTERM), with uploads in flight: nothing of the first may be left
 * behind to cost the device, and nothing of the second may be cut off.
 */
class CrashAndDrainTest {

  private static final int NOTES = 10;
  private static final int NOTE_MILLIS = 2_000;

  @TempDir Path dir;
  private FakeProvider provider;
  private final List<GatewayProcess> processes = new ArrayList<>();
  private final ExecutorService phones = Executors.newFixedThreadPool(NOTES);
  private final OkHttpClient client =
      new OkHttpClient.Builder()
          .readTimeout(Duration.ofSeconds(60))
          .retryOnConnectionFailure(false)
          .build();

  @BeforeEach
  void startProvider() throws IOException {
    provider = new FakeProvider();
  }

  @AfterEach
  void stop() {
    processes.forEach(GatewayProcess::close);
    phones.shutdownNow();
    provider.close();
    client.dispatcher().executorService().shutdown();
  }

  @Test
  void afterKillNineTheRestartedGatewayLeavesNoSpoolFileAndNoStrandedHoldAndChargesEachNoteOnce()
      throws Exception {
    // Twelve notes' worth of trial: holds stranded by the crash (ten notes) would leave room for
    // only two of the ten resends.
    Map<String, String> env = environment(Map.of("BOLO_TRIAL_SECONDS", "24"));
    GatewayProcess crashed = start(env, "crashed");
    provider.hold();
    List<byte[]> notes = new ArrayList<>();
    for (int i = 0; i < NOTES; i++) {
      notes.add(TestAudio.wav(NOTE_MILLIS, 900 + i));
    }
    for (byte[] note : notes) {
      phones.submit(() -> upload(crashed, note));
    }
    Await.until(() -> provider.calls() == NOTES, () -> provider.calls() + " provider calls");
    assertThat(spoolFiles()).hasSize(NOTES);
    assertThat(holds()).isEqualTo(NOTES);

    crashed.kill();
    provider.release();
    assertThat(spoolFiles()).as("left by the killed process").hasSize(NOTES);

    GatewayProcess restarted = start(env, "restarted");

    assertThat(spoolFiles()).isEmpty();
    assertThat(holds()).isZero();
    List<Future<Integer>> resends = new ArrayList<>();
    for (byte[] note : notes) {
      resends.add(phones.submit(() -> upload(restarted, note)));
    }
    for (Future<Integer> resend : resends) {
      assertThat(resend.get(60, TimeUnit.SECONDS)).isEqualTo(200);
    }
    try (LedgerProbe operator = LedgerProbe.open(dir.resolve("data"))) {
      assertThat(operator.chargedMillis("alpha")).isEqualTo((long) NOTES * NOTE_MILLIS);
    }
    // A note's spool file goes once its work ends, which may be just after its copies' answers.
    Await.until(() -> spoolFiles().isEmpty(), () -> "spool files left: " + spoolFiles());
  }

  @Test
  void sigtermLetsEveryWaitingRequestGetItsTranscriptChargesEachOnceAndExitsZero()
      throws Exception {
    // Every call is held until the drain has begun, so the drain has them all to wait for.
    provider.hold();
    GatewayProcess gateway = start(environment(Map.of("BOLO_DRAIN_TIMEOUT", "30s")), "drained");
    List<Future<Integer>> answers = new ArrayList<>();
    for (int i = 0; i < NOTES; i++) {
      byte[] note = TestAudio.wav(NOTE_MILLIS, 700 + i);
      answers.add(phones.submit(() -> upload(gateway, note)));
    }
    Await.until(() -> provider.calls() == NOTES, () -> provider.calls() + " provider calls");

    gateway.terminate();
    Await.until(
        () -> logOf("drained").contains("draining: "), () -> "no drain began: " + logOf("drained"));
    provider.release();

    List<String> statuses = new ArrayList<>();
    for (Future<Integer> answer : answers) {
      statuses.add(answerOf(answer));
    }
    int exit = gateway.awaitExit(Duration.ofSeconds(30));
    assertThat(statuses).as(() -> logOf("drained")).containsOnly("200");
    assertThat(exit).isZero();
    assertThat(provider.calls()).isEqualTo(NOTES);
    try (LedgerProbe operator = LedgerProbe.open(dir.resolve("data"))) {
      assertThat(operator.chargedMillis("alpha")).isEqualTo((long) NOTES * NOTE_MILLIS);
      assertThat(operator.usage("alpha").requests()).isEqualTo(NOTES);
    }
    assertThat(Files.readString(dir.resolve("drained.log")))
        .contains("draining: " + NOTES + " requests and " + NOTES + " engine calls in flight")
        // Finished, not cut at BOLO_DRAIN_TIMEOUT.
        .contains("drained in")
        .doesNotContain("drain timed out");
  }

  /** The status, or what went wrong instead, for the failure message. */
  private static String answerOf(Future<Integer> answer) throws InterruptedException {
    try {
      return Integer.toString(answer.get(60, TimeUnit.SECONDS));
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      return e.toString();
    }
  }

  private String logOf(String name) {
    try {
      return Files.readString(dir.resolve(name + ".log"));
    } catch (IOException e) {
      return e.toString();
    }
  }

  private Map<String, String> environment(Map<String, String> extra) {
    Map<String, String> env =
        new HashMap<>(Gateway.openAiEnvironment(provider, dir.resolve("data")));
    // Every note goes to the spool, so a crash has files to leave behind.
    env.put("BOLO_UPLOAD_MEMORY_BYTES", "1024");
    env.put("BOLO_TEST_LOG_LEVEL", "INFO");
    env.putAll(extra);
    return env;
  }

  private GatewayProcess start(Map<String, String> env, String name) throws IOException {
    GatewayProcess process = GatewayProcess.start(env, dir.resolve(name + ".log"));
    processes.add(process);
    return process;
  }

  private int upload(GatewayProcess gateway, byte[] note) throws IOException {
    Request request =
        Gateway.nativeUploadRequest(gateway.url("/v1/transcriptions"), Gateway.TOKEN_A, note);
    try (Response response = client.newCall(request).execute()) {
      return response.code();
    }
  }

  private List<Path> spoolFiles() {
    Path spool = dir.resolve("data").resolve("spool");
    if (!Files.exists(spool)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(spool)) {
      return files.filter(Files::isRegularFile).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private long holds() throws SQLException {
    Path database = dir.resolve("data").resolve(LedgerConfig.EMBEDDED_FILE_NAME);
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + database);
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT COUNT(*) FROM quota_holds")) {
      r.next();
      return r.getLong(1);
    }
  }
}
