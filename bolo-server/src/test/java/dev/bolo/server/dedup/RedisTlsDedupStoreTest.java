package dev.bolo.server.dedup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bolo.server.config.ServerConfig;
import dev.bolo.server.redis.RedisEndpoint;
import dev.bolo.server.testing.TestCertificates;
import dev.bolo.testkit.Directories;
import io.lettuce.core.RedisException;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The store contract over TLS ({@code rediss://}), with the server's certificate signed by a CA the
 * test makes and the gateway given that CA in {@code BOLO_REDIS_CA_CERT}. The server is Debian's
 * {@code redis-server} (built with TLS; installed by {@code .ci/run}) listening on a TLS port only.
 * A server whose certificate chains to another CA, or to none the JVM trusts, is refused.
 */
class RedisTlsDedupStoreTest extends RedisStoreContract {

  private static @Nullable Process server;
  private static @Nullable Path dir;
  private static int port;
  private static TestCertificates.@Nullable Issued issued;
  private static TestCertificates.@Nullable Issued stranger;

  @BeforeAll
  static void startRedisOverTls() throws Exception {
    Path dir = Files.createTempDirectory("bolo-redis-tls-");
    RedisTlsDedupStoreTest.dir = dir;
    issued =
        TestCertificates.issue(dir.resolve("ours"), List.of("localhost"), List.of("127.0.0.1"));
    stranger = TestCertificates.issue(dir.resolve("other"), List.of("localhost"), List.of());
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    server =
        new ProcessBuilder(
                "redis-server",
                "--port",
                "0",
                "--tls-port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--tls-cert-file",
                issued.certificate().toString(),
                "--tls-key-file",
                issued.key().toString(),
                "--tls-ca-cert-file",
                issued.caCertificate().toString(),
                "--tls-auth-clients",
                "no",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                dir.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("redis.log").toFile())
            .start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try (Socket probe = new Socket("127.0.0.1", port)) {
        return;
      } catch (IOException notYet) {
        if (!server.isAlive() || System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "redis over TLS did not start: " + Files.readString(dir.resolve("redis.log")));
        }
        Thread.sleep(50);
      }
    }
  }

  @AfterAll
  static void stop() throws InterruptedException, IOException {
    if (server != null) {
      server.destroy();
      server.waitFor(5, TimeUnit.SECONDS);
    }
    if (dir != null) {
      Directories.deleteTree(dir);
    }
  }

  @Override
  String redisUrl() {
    return "rediss://localhost:" + port;
  }

  /** As the gateway builds it from {@code BOLO_REDIS_URL} and {@code BOLO_REDIS_CA_CERT}. */
  @Override
  RedisEndpoint endpoint() {
    return ServerConfig.fromMap(
            Map.of(
                "BOLO_STORE", "redis",
                "BOLO_REDIS_URL", redisUrl(),
                "BOLO_REDIS_CA_CERT", certificates(issued).caCertificate().toString()))
        .store()
        .redisEndpoint();
  }

  @Test
  void aServerSignedByAnotherCaIsRefused() {
    RedisEndpoint wrongCa =
        RedisEndpoint.parse(redisUrl()).trusting(certificates(stranger).caCertificate());

    assertThatThrownBy(() -> connect(wrongCa)).isInstanceOf(RedisException.class);
  }

  @Test
  void aServerSignedByAPrivateCaIsRefusedWithoutItsCaFile() {
    assertThatThrownBy(() -> connect(RedisEndpoint.parse(redisUrl())))
        .isInstanceOf(RedisException.class);
  }

  @Test
  void plainRedisOnTheTlsPortIsRefused() {
    assertThatThrownBy(() -> connect(RedisEndpoint.parse("redis://localhost:" + port)))
        .isInstanceOf(RedisException.class);
  }

  @Test
  void aCaFileThatCannotBeReadIsRefusedAtStartNamingTheVariable() {
    assertThatThrownBy(
            () ->
                ServerConfig.fromMap(
                    Map.of(
                        "BOLO_STORE", "redis",
                        "BOLO_REDIS_URL", redisUrl(),
                        "BOLO_REDIS_CA_CERT", "/nonexistent/ca.crt")))
        .isInstanceOf(ServerConfig.ConfigException.class)
        .hasMessageContaining("BOLO_REDIS_CA_CERT")
        .hasMessageContaining("/nonexistent/ca.crt");
  }

  @Test
  void theStoreReallySpeaksTls() {
    DedupStore store = newStore(Duration.ofMinutes(1));
    try {
      assertThat(store.readiness().toString()).doesNotContain("down");
      assertThat(endpoint().nodes().getFirst().isSsl()).isTrue();
    } finally {
      store.close();
    }
  }

  private static void connect(RedisEndpoint endpoint) {
    RedisDedupStore store =
        RedisDedupStore.connect(
            RedisDedupStoreTest.options(endpoint, Duration.ofMinutes(1)),
            System::nanoTime,
            () -> {});
    store.close();
  }

  private static TestCertificates.Issued certificates(TestCertificates.@Nullable Issued held) {
    if (held == null) {
      throw new IllegalStateException("used before the server started");
    }
    return held;
  }
}
