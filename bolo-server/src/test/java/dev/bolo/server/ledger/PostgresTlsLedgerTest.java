package dev.bolo.server.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bolo.server.Main;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.GatewayProcess;
import dev.bolo.server.testing.PostgresDatabases;
import dev.bolo.server.testing.TestCertificates;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ledger contract on a PostgreSQL server that takes TLS connections only, through the URL an
 * operator gives it: {@code sslmode=verify-full} and {@code sslrootcert=} the PEM file of the CA
 * that signed the server's certificate (pgjdbc's own parameters; no {@code sslfactory}). The
 * certificates are made here, the server's naming {@code localhost} only. A server signed by
 * another CA, a host the certificate does not name, and a connection without TLS are each refused
 * when the ledger opens, so {@code bolo serve} never starts on them.
 */
class PostgresTlsLedgerTest extends LedgerContractTest {

  @TempDir static Path files;

  private static EmbeddedPostgres postgres;

  /** The server's certificate and the CA the ledger trusts. */
  private static TestCertificates.Issued server;

  /** A CA of its own, which did not sign the server's certificate. */
  private static TestCertificates.Issued stranger;

  /** This test's database, named by {@link #freshDatabaseUrl}. */
  private String database = "";

  @BeforeAll
  static void startServerThatTakesTlsOnly() throws IOException {
    server = TestCertificates.issue(files.resolve("server"), List.of("localhost"), List.of());
    stranger = TestCertificates.issue(files.resolve("stranger"), List.of("localhost"), List.of());
    // No line for a connection without TLS: the server refuses it.
    Path hba = files.resolve("pg_hba.conf");
    Files.writeString(
        hba,
        """
        hostssl all all 127.0.0.1/32 trust
        hostssl all all ::1/128 trust
        """);
    postgres =
        EmbeddedPostgres.builder()
            .setServerConfig("ssl", "on")
            .setServerConfig("ssl_cert_file", server.certificate().toString())
            .setServerConfig("ssl_key_file", server.key().toString())
            .setServerConfig("hba_file", hba.toString())
            .start();
  }

  @AfterAll
  static void stopServer() throws IOException {
    if (postgres != null) {
      postgres.close();
    }
  }

  @Override
  String freshDatabaseUrl() throws SQLException {
    database = PostgresDatabases.create(postgres, "tls");
    return url("localhost", verifyFull(server));
  }

  private String url(String host, String parameters) {
    return "jdbc:postgresql://%s:%d/%s?user=postgres&%s"
        .formatted(host, postgres.getPort(), database, parameters);
  }

  private static String verifyFull(TestCertificates.Issued trusted) {
    return "sslmode=verify-full&sslrootcert=" + trusted.caCertificate();
  }

  @Test
  void everyConnectionOfTheLedgerIsEncrypted() throws SQLException {
    DurableLedger ledger = open(config);
    ledger.add(new Device("phone"));

    List<String> connections = new ArrayList<>();
    try (Connection c = postgres.getPostgresDatabase().getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT ssl, version FROM pg_stat_ssl JOIN pg_stat_activity USING (pid)"
                    + " WHERE datname = ?")) {
      s.setString(1, database);
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          connections.add(r.getBoolean("ssl") + " " + r.getString("version"));
        }
      }
    }
    assertThat(connections).isNotEmpty().allMatch(c -> c.matches("true TLSv1\\.[23]"));
  }

  @Test
  void aConnectionWithoutTlsIsRefused() {
    assertThatThrownBy(() -> open(config.withJdbcUrl(url("localhost", "sslmode=disable"))))
        .isInstanceOf(LedgerException.class)
        .hasMessageStartingWith(
            "cannot connect to the ledger database jdbc:postgresql://localhost:")
        .rootCause()
        .hasMessageContaining("no pg_hba.conf entry")
        .hasMessageContaining("no encryption");
  }

  @Test
  void aServerSignedByAnotherCaIsRefusedWhenTheLedgerOpens() {
    assertThatThrownBy(() -> open(config.withJdbcUrl(url("localhost", verifyFull(stranger)))))
        .isInstanceOf(LedgerException.class)
        .hasMessage(
            "cannot connect to the ledger database jdbc:postgresql://localhost:%d/%s?...",
            postgres.getPort(), database)
        .hasStackTraceContaining("PKIX path building failed")
        .rootCause()
        .hasMessage("unable to find valid certification path to requested target");
  }

  @Test
  void aHostTheCertificateDoesNotNameIsRefusedWhenTheLedgerOpens() {
    // The same server and CA, reached by its address: the certificate names localhost only.
    assertThatThrownBy(() -> open(config.withJdbcUrl(url("127.0.0.1", verifyFull(server)))))
        .isInstanceOf(LedgerException.class)
        .hasMessageStartingWith(
            "cannot connect to the ledger database jdbc:postgresql://127.0.0.1:")
        .rootCause()
        .hasMessageContaining("The hostname 127.0.0.1 could not be verified");
    // verify-ca checks the chain only, so the address is enough for it.
    String verifyCa = "sslmode=verify-ca&sslrootcert=" + server.caCertificate();
    DurableLedger ledger = open(config.withJdbcUrl(url("127.0.0.1", verifyCa)));
    assertThat(ledger.readiness().isReady()).isTrue();
  }

  @Test
  void boloServeRefusesAnUntrustedServerInOneLineAndExitsOne() throws Exception {
    Path log = dataDir.resolve("serve.log");
    int exit;
    try (FakeProvider provider = new FakeProvider()) {
      Map<String, String> env =
          new HashMap<>(Gateway.openAiEnvironment(provider, dataDir.resolve("data")));
      env.put("BOLO_DATABASE_URL", url("localhost", verifyFull(stranger)));
      exit = GatewayProcess.runUntilExit(env, log);
    }

    assertThat(exit).isEqualTo(Main.CANNOT_START);
    String line =
        "bolo serve: cannot connect to the ledger database jdbc:postgresql://localhost:%d/%s?...:"
            + " unable to find valid certification path to requested target";
    assertThat(Files.readAllLines(log))
        .containsExactly(line.formatted(postgres.getPort(), database));
  }
}
