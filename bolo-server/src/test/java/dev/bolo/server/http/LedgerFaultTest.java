package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.App;
import dev.bolo.server.config.ServerConfig;
import dev.bolo.server.health.Readiness;
import dev.bolo.server.ledger.Charge;
import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.Ledger;
import dev.bolo.server.ledger.LedgerException;
import dev.bolo.server.ledger.RateDecision;
import dev.bolo.server.ledger.Reservation;
import dev.bolo.server.ledger.UsageRecord;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.LedgerProbe;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.OkHttpClient;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A ledger that fails the way a database does, at the moment that matters most: after the provider
 * has delivered a transcript it was paid for (PROTOCOL.md rule 9), and before any work starts.
 */
class LedgerFaultTest {

  private static final int NOTE_MILLIS = 1_500;

  @TempDir Path dataDir;
  private final FakeProvider provider;
  private final AtomicInteger commitFailures = new AtomicInteger();
  private final AtomicInteger reserveFailures = new AtomicInteger();
  private final AtomicInteger commits = new AtomicInteger();
  private @Nullable App app;
  private final OkHttpClient client = new OkHttpClient.Builder().build();

  LedgerFaultTest() throws IOException {
    provider = new FakeProvider();
  }

  @AfterEach
  void stop() {
    if (app != null) {
      app.close();
    }
    provider.close();
    client.dispatcher().executorService().shutdown();
  }

  private App app() {
    return java.util.Objects.requireNonNull(app, "started");
  }

  private void start(Map<String, String> extra) {
    Map<String, String> env = new HashMap<>(Gateway.openAiEnvironment(provider, dataDir));
    env.putAll(extra);
    app = App.builder(ServerConfig.fromMap(env)).ledgerView(Failing::new).build().start();
  }

  @Test
  void aTranscriptIsAnsweredWhenItsChargeCannotBeWrittenAndChargedOnceWhenTheLedgerIsBack()
      throws Exception {
    start(Map.of());
    commitFailures.set(1);
    byte[] note = TestAudio.wav(NOTE_MILLIS, 31);

    Upload first = upload(note);
    Upload resend = upload(note);

    assertThat(first.status()).isEqualTo(200);
    assertThat(resend.status()).isEqualTo(200);
    assertThat(resend.replayed()).isEqualTo("true");
    assertThat(provider.calls()).isEqualTo(1);
    try (LedgerProbe operator = LedgerProbe.open(dataDir)) {
      Await.until(
          () -> operator.chargedMillis("alpha") == NOTE_MILLIS,
          () -> operator.chargedMillis("alpha") + " ms charged");
      Await.until(
          () -> app().metrics().get("bolo_charges_pending").gauge().value() == 0,
          () -> "charges still pending");
      assertThat(commitFailures.get()).isZero();
      assertThat(commits.get()).isEqualTo(2);
      assertThat(operator.chargedMillis("alpha")).isEqualTo(NOTE_MILLIS);
    }
  }

  @Test
  void aLedgerThatCannotReserveIsTheGatewaysFaultAndTheResendSucceeds() throws Exception {
    start(Map.of("BOLO_TRIAL_SECONDS", "60"));
    reserveFailures.set(1);
    byte[] note = TestAudio.wav(NOTE_MILLIS, 32);

    Upload refused = upload(note);
    Upload resend = upload(note);

    assertThat(refused.status()).isEqualTo(503);
    assertThat(refused.body()).contains("\"code\":\"server_unavailable\"");
    assertThat(refused.retryAfter()).isNotNull();
    assertThat(resend.status()).isEqualTo(200);
    assertThat(provider.calls()).isEqualTo(1);
  }

  private record Upload(int status, String body, String replayed, @Nullable String retryAfter) {}

  private Upload upload(byte[] note) throws IOException {
    try (Response response =
        client
            .newCall(
                Gateway.nativeUploadRequest(
                    "http://127.0.0.1:" + app().port() + "/v1/transcriptions",
                    Gateway.TOKEN_A,
                    note))
            .execute()) {
      return new Upload(
          response.code(),
          response.body().string(),
          String.valueOf(response.header("Idempotent-Replayed")),
          response.header("Retry-After"));
    }
  }

  /** The gateway's ledger, failing its next calls as scripted. */
  private final class Failing implements Ledger {
    private final Ledger real;

    Failing(Ledger real) {
      this.real = real;
    }

    @Override
    public Optional<Device> authenticate(String token) {
      return real.authenticate(token);
    }

    @Override
    public Reservation reserve(Device device, String workKey, long audioMillis, Duration deadline) {
      if (reserveFailures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        throw new LedgerException("reserve quota failed", new SQLException("connection refused"));
      }
      return real.reserve(device, workKey, audioMillis, deadline);
    }

    @Override
    public Charge commit(Reservation.Granted reservation, long audioMillis) {
      commits.incrementAndGet();
      if (commitFailures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        throw new LedgerException("commit quota failed", new SQLException("connection refused"));
      }
      return real.commit(reservation, audioMillis);
    }

    @Override
    public void release(Reservation.Granted reservation) {
      real.release(reservation);
    }

    @Override
    public void record(UsageRecord usage) {
      real.record(usage);
    }

    @Override
    public RateDecision admit(Device device) {
      return real.admit(device);
    }

    @Override
    public Readiness readiness() {
      return real.readiness();
    }
  }
}
