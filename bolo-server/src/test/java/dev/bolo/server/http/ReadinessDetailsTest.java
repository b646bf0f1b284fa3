package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.ClusterExtension;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.PostgresDatabases;
import dev.bolo.testkit.Await;
import dev.bolo.testkit.CuttingProxy;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import okhttp3.Request;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code /readyz} answers anyone, so it names each component's state and nothing more, while the
 * operator's API ({@code /admin/api/live}) has the details (issue 45, item 7). The ledger's
 * PostgreSQL is reached through a proxy that is then closed: to the gateway, a database that is
 * down (connection refused); Redis is stopped.
 */
class ReadinessDetailsTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ADMIN_TOKEN = "admin-token-0123456789abcdef";
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  @RegisterExtension
  final ClusterExtension cluster = new ClusterExtension(Map.of("BOLO_ADMIN_TOKEN", ADMIN_TOKEN));

  @Test
  void withTheDatabaseAndRedisDownReadyzSaysOnlyStatesAndTheAdminApiHasTheDetails()
      throws Exception {
    int postgresPort = PostgresDatabases.port();
    int redisPort = cluster.redis().port();
    CuttingProxy database = CuttingProxy.start(postgresPort);
    Map<String, String> env = cluster.environment("a");
    env.put(
        "BOLO_DATABASE_URL",
        cluster.databaseUrl().replaceFirst("//[^/]+/", "//127.0.0.1:" + database.port() + "/"));
    Gateway gateway = cluster.closeAfterTest(Gateway.withEnvironment(env));
    assertThat(readyz(gateway).status()).isEqualTo(200);

    database.close();
    cluster.redis().stop();

    Await.until(
        PATIENCE,
        () -> {
          String body = readyz(gateway).body();
          return body.contains("\"ledger\":\"down\"") && body.contains("\"store\":\"degraded\"");
        },
        () -> readyz(gateway).body());
    Gateway.Reply ready = readyz(gateway);
    assertThat(ready.status()).isEqualTo(503);
    assertThat(JSON.readTree(ready.body()))
        .isEqualTo(
            JSON.readTree(
                """
                {"status": "not ready", "components": {"engine": "ready", "gateway": "ready",
                 "ledger": "down", "spool": "ready", "store": "degraded", "webhooks": "ready"}}"""));
    assertThat(ready.body())
        .doesNotContain(
            "127.0.0.1",
            "localhost",
            String.valueOf(database.port()),
            String.valueOf(postgresPort),
            String.valueOf(redisPort),
            "postgres",
            "redis",
            "Exception",
            "refused");
    // The database's check outlasts the monitor's 2 s (a connection waits 3 s for the pool), so
    // its detail is the check's own answer only from when it ends until the next one times out.
    String where = "ledger database jdbc:postgresql://127.0.0.1:" + database.port() + "/";
    Await.until(
        PATIENCE,
        () -> liveReadiness(gateway).path("ledger").path("detail").asText().startsWith(where),
        () -> liveReadiness(gateway).toString());
    JsonNode details = liveReadiness(gateway);
    assertThat(details.path("ledger").path("state").asText()).isEqualTo("down");
    assertThat(details.path("store").path("state").asText()).isEqualTo("degraded");
    assertThat(details.path("store").path("detail").asText())
        .contains("redis 127.0.0.1:" + redisPort + " unreachable");
  }

  private static Gateway.Reply readyz(Gateway gateway) {
    try {
      return gateway.send(new Request.Builder().url(gateway.url("/readyz")).build());
    } catch (IOException e) {
      throw new AssertionError("readiness not served", e);
    }
  }

  /** Each component's readiness with its detail, as the operator's API shows it. */
  private static JsonNode liveReadiness(Gateway gateway) {
    try {
      Gateway.Reply live =
          gateway.send(
              new Request.Builder()
                  .url(gateway.url("/admin/api/live"))
                  .header("Authorization", "Bearer " + ADMIN_TOKEN)
                  .build());
      assertThat(live.status()).as(live.body()).isEqualTo(200);
      return JSON.readTree(live.body()).path("readiness");
    } catch (IOException e) {
      throw new AssertionError("the operator's API did not answer", e);
    }
  }
}
