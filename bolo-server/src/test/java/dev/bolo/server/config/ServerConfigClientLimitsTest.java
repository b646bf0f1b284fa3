package dev.bolo.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The bounds on slow, idle and numerous clients, and on the spool. */
class ServerConfigClientLimitsTest {

  @Test
  void defaultsCutSlowClientsOffOnTimeAndBoundTheUploads() {
    ServerConfig config = ServerConfig.fromMap(Map.of());
    assertThat(config.listen().headerTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(config.listen().idleTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.limits().uploads().minBytesPerSecond()).isEqualTo(16 * 1024);
    assertThat(config.limits().uploads().rateWindow()).isEqualTo(Duration.ofSeconds(10));
    assertThat(config.limits().uploads().maxConcurrentUploads()).isEqualTo(256);
    assertThat(config.limits().uploads().spoolMaxBytes()).isEqualTo(4L * 1024 * 1024 * 1024);
    assertThat(config.limits().uploads().budgetBytes())
        .isEqualTo(
            ConfigParser.defaultUploadBudgetBytes(Runtime.getRuntime().availableProcessors()));
    assertThat(config.limits().uploads().queueWait()).isEqualTo(Duration.ofSeconds(4));
    assertThat(config.limits().maxActiveRequests())
        .isEqualTo(ConfigParser.defaultMaxActiveRequests(Runtime.getRuntime().maxMemory()));
    assertThat(config.limits().requestQueueWait()).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void theDefaultNumberOfRequestsServedAtOnceGrowsWithTheHeap() {
    long mib = 1024 * 1024;
    assertThat(ConfigParser.defaultMaxActiveRequests(256 * mib)).isEqualTo(2_730);
    assertThat(ConfigParser.defaultMaxActiveRequests(1024 * mib)).isEqualTo(10_922);
    assertThat(ConfigParser.defaultMaxActiveRequests(4 * mib)).as("a floor").isEqualTo(64);
    assertThat(ConfigParser.defaultMaxActiveRequests(Long.MAX_VALUE))
        .as("a ceiling")
        .isEqualTo(100_000);
  }

  @Test
  void theDefaultUploadBudgetIs64MiBPerCoreWhateverTheLargestNote() {
    long mib = 1024 * 1024;
    assertThat(ConfigParser.defaultUploadBudgetBytes(1)).isEqualTo(64 * mib);
    assertThat(ConfigParser.defaultUploadBudgetBytes(2)).isEqualTo(128 * mib);
    assertThat(ConfigParser.defaultUploadBudgetBytes(8)).isEqualTo(512 * mib);
    assertThat(ServerConfig.fromMap(Map.of()).limits().maxUploadBytes())
        .as("the largest note, which the budget no longer grows to")
        .isEqualTo(512 * mib);
  }

  @Test
  void everyLimitIsConfigurable() {
    ServerConfig config =
        ServerConfig.fromMap(
            Map.of(
                "BOLO_HEADER_TIMEOUT", "2s",
                "BOLO_IDLE_TIMEOUT", "45s",
                "BOLO_MIN_BODY_RATE", "1024",
                "BOLO_BODY_RATE_WINDOW", "5s",
                "BOLO_MAX_CONCURRENT_UPLOADS", "8",
                "BOLO_SPOOL_MAX_BYTES", "1000000",
                "BOLO_UPLOAD_BUDGET_BYTES", "50000000",
                "BOLO_UPLOAD_QUEUE_WAIT", "0s",
                "BOLO_MAX_CONCURRENT_REQUESTS", "12",
                "BOLO_REQUEST_QUEUE_WAIT", "1500ms"));
    assertThat(config.listen().headerTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(config.listen().idleTimeout()).isEqualTo(Duration.ofSeconds(45));
    assertThat(config.limits().uploads().minBytesPerSecond()).isEqualTo(1024);
    assertThat(config.limits().uploads().rateWindow()).isEqualTo(Duration.ofSeconds(5));
    assertThat(config.limits().uploads().maxConcurrentUploads()).isEqualTo(8);
    assertThat(config.limits().uploads().spoolMaxBytes()).isEqualTo(1_000_000);
    assertThat(config.limits().uploads().budgetBytes()).isEqualTo(50_000_000);
    assertThat(config.limits().uploads().queueWait()).isZero();
    assertThat(config.limits().maxActiveRequests()).isEqualTo(12);
    assertThat(config.limits().requestQueueWait()).isEqualTo(Duration.ofMillis(1500));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "BOLO_HEADER_TIMEOUT=0s | BOLO_HEADER_TIMEOUT must be positive: 0s",
        "BOLO_IDLE_TIMEOUT=2d | BOLO_IDLE_TIMEOUT must be at most a day: 2d",
        "BOLO_BODY_RATE_WINDOW=soon | BOLO_BODY_RATE_WINDOW must be a duration like 10m, 90s, 500ms or PT10M: soon",
        "BOLO_MIN_BODY_RATE=0 | BOLO_MIN_BODY_RATE must be between 1 and 1073741824: 0",
        "BOLO_MAX_CONCURRENT_UPLOADS=0 | BOLO_MAX_CONCURRENT_UPLOADS must be between 1 and 100000: 0",
        "BOLO_SPOOL_MAX_BYTES=lots | BOLO_SPOOL_MAX_BYTES must be a whole number: lots",
        "BOLO_UPLOAD_BUDGET_BYTES=0 | BOLO_UPLOAD_BUDGET_BYTES must be between 1 and 9223372036854775807: 0",
        "BOLO_UPLOAD_QUEUE_WAIT=2m | BOLO_UPLOAD_QUEUE_WAIT must be between 0s and 1m: 2m",
        "BOLO_UPLOAD_QUEUE_WAIT=-1s | BOLO_UPLOAD_QUEUE_WAIT must be a duration like 10m, 90s, 500ms or PT10M: -1s",
        "BOLO_MAX_CONCURRENT_REQUESTS=0 | BOLO_MAX_CONCURRENT_REQUESTS must be between 1 and 1000000: 0",
        "BOLO_REQUEST_QUEUE_WAIT=5m | BOLO_REQUEST_QUEUE_WAIT must be between 0s and 1m: 5m",
      })
  void aBadValueIsOneLineNamingTheVariable(String assignment, String message) {
    String[] parts = assignment.split("=", 2);
    assertThatThrownBy(() -> ServerConfig.fromMap(Map.of(parts[0], parts[1])))
        .isInstanceOf(ServerConfig.ConfigException.class)
        .hasMessage(message)
        .hasNoCause();
  }

  @Test
  void aDevicesBodiesInFlightAndItsUnfinishedUploadsAreBoundedEachByItsOwnVariable() {
    ServerConfig.Limits defaults = ServerConfig.fromMap(Map.of()).limits();
    assertThat(defaults.uploads().maxBodiesPerDevice()).isEqualTo(8);
    assertThat(defaults.maxOpenUploadsPerDevice()).isEqualTo(8);
    assertThat(defaults.formerDeviceLimitName()).isFalse();

    ServerConfig.Limits split =
        ServerConfig.fromMap(
                Map.of("BOLO_MAX_BODIES_PER_DEVICE", "3", "BOLO_MAX_OPEN_UPLOADS_PER_DEVICE", "5"))
            .limits();
    assertThat(split.uploads().maxBodiesPerDevice()).isEqualTo(3);
    assertThat(split.maxOpenUploadsPerDevice()).isEqualTo(5);
  }

  @Test
  void theFormerNameSetsBothWhereTheNewNamesAreUnsetForOneRelease() {
    ServerConfig.Limits former =
        ServerConfig.fromMap(Map.of("BOLO_MAX_UPLOADS_PER_DEVICE", "2")).limits();
    assertThat(former.uploads().maxBodiesPerDevice()).isEqualTo(2);
    assertThat(former.maxOpenUploadsPerDevice()).isEqualTo(2);
    assertThat(former.formerDeviceLimitName()).isTrue();

    ServerConfig.Limits both =
        ServerConfig.fromMap(
                Map.of("BOLO_MAX_UPLOADS_PER_DEVICE", "2", "BOLO_MAX_BODIES_PER_DEVICE", "6"))
            .limits();
    assertThat(both.uploads().maxBodiesPerDevice()).isEqualTo(6);
    assertThat(both.maxOpenUploadsPerDevice()).isEqualTo(2);

    assertThatThrownBy(() -> ServerConfig.fromMap(Map.of("BOLO_MAX_UPLOADS_PER_DEVICE", "0")))
        .hasMessageContaining("BOLO_MAX_UPLOADS_PER_DEVICE");
  }
}
