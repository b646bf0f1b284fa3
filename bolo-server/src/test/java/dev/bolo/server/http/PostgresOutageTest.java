package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
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
import okhttp3.OkHttpClient;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real PostgreSQL ledger stopped while notes are at the provider, for longer than the pool waits
 * for a connection, then started again: the paid transcripts reach every copy, new notes are told
 * to resend (503), and each note is charged once when the database is back (PROTOCOL.md rule 9).
 */
class PostgresOutageTest {

  private static final int NOTES = 8;
  private static final int COPIES = 2;
  private static final int NOTE_MILLIS = 2_000;
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  @TempDir Path dir;
  private @Nullable EmbeddedPostgres postgres;
  private @Nullable FakeProvider provider;
  private @Nullable Gateway gateway;
  private final ExecutorService phones = Executors.newVirtualThreadPerTaskExecutor();

  @AfterEach
  void stop() throws IOException {
    phones.shutdownNow();
    if (gateway != null) {
      gateway.close();
    }
    if (provider != null) {
      provider.close();
    }
    if (postgres != null) {
      postgres.close();
    }
  }

  private EmbeddedPostgres startPostgres(int port) throws IOException {
    return EmbeddedPostgres.builder()
        .setPort(port)
        .setDataDirectory(dir.resolve("pg"))
        .setCleanDataDirectory(false)
        .start();
  }

  @Test
  void runningWorkIsAnsweredNewNotesAre503AndEachNoteIsChargedOnceWhenTheDatabaseIsBack()
      throws Exception {
    int port = freePort();
    EmbeddedPostgres first = startPostgres(port);
    postgres = first;
    FakeProvider provider = new FakeProvider();
    this.provider = provider;
    // Every call is held until the database is gone, so its work ends during the outage.
    provider.hold();
    Map<String, String> env =
        new HashMap<>(Gateway.openAiEnvironment(provider, dir.resolve("data")));
    env.put("BOLO_DATABASE_URL", first.getJdbcUrl("postgres", "postgres"));
    Gateway gateway = Gateway.withRealTime(env);
    this.gateway = gateway;
    List<byte[]> notes = new ArrayList<>();
    List<Future<Gateway.Reply>> answers = new ArrayList<>();
    for (int i = 0; i < NOTES; i++) {
      byte[] note = TestAudio.wav(NOTE_MILLIS, 500 + i);
      notes.add(note);
      for (int copy = 0; copy < COPIES; copy++) {
        answers.add(phones.submit(() -> gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, note))));
      }
    }
    Await.until(
        PATIENCE, () -> provider.calls() == NOTES, () -> provider.calls() + " provider calls");

    first.close();
    postgres = null;
    provider.release();

    for (Future<Gateway.Reply> answer : answers) {
      Gateway.Reply reply = answer.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
      assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    }
    // A device the gateway has not looked up since the database went: a token and a limit looked
    // up are remembered for a second, so alpha's next note may still find its own in memory.
    // A phone that waits 20 s gets the 503: the ledger's pool gives up on the database after 3
    // s, where Hikari's default would hold the request 30 s. A bound on a timer, not on speed.
    OkHttpClient phone = gateway.client().newBuilder().readTimeout(Duration.ofSeconds(20)).build();
    Gateway.Reply refused;
    try (Response response =
        phone
            .newCall(gateway.nativeUpload(Gateway.TOKEN_B, TestAudio.wav(NOTE_MILLIS, 599)))
            .execute()) {
      refused = Gateway.replyOf(response);
    }
    assertThat(refused.status()).as(refused.body()).isEqualTo(503);
    assertThat(refused.body()).contains("\"code\":\"server_unavailable\"");
    assertThat(refused.retryAfter()).isNotNull();
    assertThat(pendingCharges()).isEqualTo(NOTES);

    EmbeddedPostgres restarted = startPostgres(port);
    postgres = restarted;

    Await.until(PATIENCE, () -> pendingCharges() == 0, () -> pendingCharges() + " charges pending");
    assertThat(charged(restarted)).isEqualTo((long) NOTES * NOTE_MILLIS);
    for (byte[] note : notes) {
      Gateway.Reply resend = gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, note));
      assertThat(resend.status()).isEqualTo(200);
      assertThat(resend.replayed()).isEqualTo("true");
    }
    assertThat(provider.calls()).isEqualTo(NOTES);
    assertThat(charged(restarted)).isEqualTo((long) NOTES * NOTE_MILLIS);
  }

  private double pendingCharges() {
    return java.util.Objects.requireNonNull(gateway)
        .app()
        .metrics()
        .get("bolo_charges_pending")
        .gauge()
        .value();
  }

  private static long charged(EmbeddedPostgres postgres) throws SQLException {
    try (Connection c = postgres.getPostgresDatabase().getConnection();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT charged_ms FROM devices WHERE name = 'alpha'")) {
      r.next();
      return r.getLong(1);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
