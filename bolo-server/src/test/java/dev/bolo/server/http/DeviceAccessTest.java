package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.ledger.LedgerConfig;
import dev.bolo.server.ledger.Tokens;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.LedgerProbe;
import dev.bolo.server.testing.LogCapture;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import mockwebserver3.MockResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Device tokens on a running gateway: operator changes made through another ledger instance on the
 * same database (as {@code ./bolo devices} makes them) hold from the next request, and a token is
 * never written in clear to the logs or the database.
 */
class DeviceAccessTest {

  private static final String PROVIDER_KEY = "sk-provider-secret-7f3a9c";

  @RegisterExtension
  final OpenAiGateway fixture = new OpenAiGateway(Map.of("BOLO_OPENAI_API_KEY", PROVIDER_KEY));

  private LedgerProbe operator;

  @BeforeEach
  void start() throws IOException {
    operator = LedgerProbe.open(fixture.dataDir());
  }

  @AfterEach
  void stop() {
    operator.close();
  }

  private Gateway gateway() {
    return fixture.gateway();
  }

  private FakeProvider provider() {
    return fixture.provider();
  }

  @Test
  void aDeviceAddedByTheOperatorWorksAtOnceAndARevokedOneGets401WithinASecond() throws Exception {
    String token = operator.add("carol");
    assertThat(status(token, 1)).isEqualTo(200);

    assertThat(operator.ledger().revoke("carol")).isTrue();

    passTheRememberedSecond();
    assertThat(status(token, 2)).isEqualTo(401);
    assertThat(status(token, 1)).as("not even a replay").isEqualTo(401);
    assertThat(provider().calls()).isEqualTo(1);
  }

  @Test
  void revokingAConfiguredDeviceStopsItsConfiguredTokenWithinASecond() throws Exception {
    assertThat(status(Gateway.TOKEN_A, 1)).isEqualTo(200);

    assertThat(operator.ledger().revoke("alpha")).isTrue();

    passTheRememberedSecond();
    assertThat(status(Gateway.TOKEN_A, 2)).isEqualTo(401);
    assertThat(status(Gateway.TOKEN_B, 2)).isEqualTo(200);
  }

  @Test
  void tokensNeverAppearInTheLogs() throws Exception {
    String carol = operator.add("carol");
    String unknown = "bolo_" + "u".repeat(32);
    List<String> secrets = List.of(Gateway.TOKEN_A, Gateway.TOKEN_B, carol, unknown, PROVIDER_KEY);
    try (LogCapture logs = LogCapture.start()) {
      assertThat(status(Gateway.TOKEN_A, 1)).isEqualTo(200);
      assertThat(status(carol, 2)).isEqualTo(200);
      assertThat(status(unknown, 3)).isEqualTo(401);
      provider().enqueue(new MockResponse.Builder().code(503).body("{\"error\":{}}").build());
      assertThat(status(Gateway.TOKEN_B, 4)).isEqualTo(503);
      operator.ledger().revoke("carol");
      passTheRememberedSecond();
      assertThat(status(carol, 5)).isEqualTo(401);

      // The request line is logged after the answer is sent: wait for all five.
      Await.until(
          () -> logs.text().split(" -> ", -1).length - 1 == 5,
          () -> "request lines in:\n" + logs.text());
      String text = logs.text();
      assertThat(text).contains("-> 401", "-> 503", "engine openai failed");
      for (String secret : secrets) {
        assertThat(text).doesNotContain(secret);
      }
    }
  }

  @Test
  void tokensAreStoredOnlyAsHashes() throws Exception {
    String carol = operator.add("carol");
    assertThat(status(Gateway.TOKEN_A, 1)).isEqualTo(200);
    assertThat(status(carol, 2)).isEqualTo(200);
    List<String> clear = List.of(Gateway.TOKEN_A, Gateway.TOKEN_B, carol);

    String rows = everyRow(fixture.dataDir().resolve(LedgerConfig.EMBEDDED_FILE_NAME));
    assertThat(rows).contains("carol", "alpha", Tokens.hash(carol));
    for (String token : clear) {
      assertThat(rows).doesNotContain(token);
    }
    // The raw files too: the database, its write-ahead log and anything spooled.
    for (Path file : filesUnder(fixture.dataDir())) {
      String raw = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
      for (String token : clear) {
        assertThat(raw).as(file.toString()).doesNotContain(token);
      }
    }
  }

  private int status(String token, long noteSeed) throws IOException {
    return gateway().send(gateway().nativeUpload(token, TestAudio.wav(500, noteSeed))).status();
  }

  /** Every value of every row of every table, as text. */
  private static String everyRow(Path database) throws SQLException {
    StringBuilder dump = new StringBuilder();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + database);
        Statement s = c.createStatement()) {
      List<String> tables = new ArrayList<>();
      try (ResultSet r = s.executeQuery("SELECT name FROM sqlite_master WHERE type = 'table'")) {
        while (r.next()) {
          tables.add(r.getString(1));
        }
      }
      assertThat(tables).contains("devices", "usage_log", "quota_holds");
      for (String table : tables) {
        try (ResultSet r = s.executeQuery("SELECT * FROM \"" + table + "\"")) {
          int columns = r.getMetaData().getColumnCount();
          while (r.next()) {
            for (int i = 1; i <= columns; i++) {
              dump.append(r.getString(i)).append('|');
            }
            dump.append('\n');
          }
        }
      }
    }
    return dump.toString();
  }

  private static List<Path> filesUnder(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      return paths.filter(Files::isRegularFile).toList();
    }
  }

  /**
   * Authentication is answered from memory for at most a second, so another process's revocation
   * holds once a second has passed on the gateway's ticker.
   */
  private void passTheRememberedSecond() {
    gateway().advance(Duration.ofSeconds(1));
  }
}
