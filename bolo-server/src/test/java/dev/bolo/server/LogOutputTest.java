package dev.bolo.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.GatewayProcess;
import dev.bolo.server.testing.TestAudio;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What an operator finds in the log of {@code bolo serve}, with the production logging setup. */
class LogOutputTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void jsonFormatWritesOneObjectPerLineWithRequestIdDeviceStatusAndDuration() throws Exception {
    Path log = dir.resolve("json.log");
    try (FakeProvider provider = new FakeProvider()) {
      Map<String, String> env = new HashMap<>(gatewayEnvironment(provider));
      env.put("BOLO_LOG_FORMAT", "json");
      try (GatewayProcess gateway = GatewayProcess.startWithProductionLogging(env, log)) {
        assertThat(upload(gateway, "note-17-attempt-1")).isEqualTo(200);
        gateway.terminate();
        assertThat(gateway.awaitExit(Duration.ofSeconds(60))).isZero();
      }
    }

    List<JsonNode> events = new ArrayList<>();
    for (String line : Files.readAllLines(log)) {
      events.add(JSON.readTree(line));
    }
    JsonNode request =
        events.stream()
            .filter(e -> "note-17-attempt-1".equals(e.path("mdc").path("request_id").asText()))
            .filter(e -> e.path("formattedMessage").asText().startsWith("POST "))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no request line in " + events));
    assertThat(request.path("level").asText()).isEqualTo("INFO");
    assertThat(request.path("mdc").path("device").asText()).isEqualTo("alpha");
    assertThat(request.path("kvpList").toString()).contains("\"status\":\"200\"", "duration_ms");
    // Shutdown and drain are logged: how many requests were in flight, and that it is done.
    assertThat(events)
        .extracting(e -> e.path("formattedMessage").asText())
        // The answered request may still be finishing its log line when the signal arrives.
        .anyMatch(m -> m.matches("draining: [01] requests and \\d+ engine calls in flight.*"))
        .anyMatch(m -> m.startsWith("drained in"))
        .contains("stopped");
  }

  @Test
  void theLogLevelFromTheConfigFileApplies() throws Exception {
    Path log = dir.resolve("warn.log");
    Path config = dir.resolve("bolo.properties");
    Files.writeString(config, "BOLO_LOG_LEVEL=WARN\n");
    try (FakeProvider provider = new FakeProvider()) {
      Map<String, String> env = new HashMap<>(gatewayEnvironment(provider));
      env.put("BOLO_CONFIG", config.toString());
      try (GatewayProcess gateway = GatewayProcess.startWithProductionLogging(env, log)) {
        assertThat(upload(gateway, "note-18")).isEqualTo(200);
        gateway.terminate();
        assertThat(gateway.awaitExit(Duration.ofSeconds(60))).isZero();
      }
    }

    // At the default INFO the start, the request and the drain would each write a line.
    assertThat(Files.readAllLines(log)).noneMatch(line -> line.contains(" INFO "));
  }

  private Map<String, String> gatewayEnvironment(FakeProvider provider) {
    return Gateway.openAiEnvironment(provider, dir.resolve("data"));
  }

  private static int upload(GatewayProcess gateway, String requestId) throws Exception {
    OkHttpClient client = new OkHttpClient();
    try {
      Request request =
          Gateway.nativeUploadRequest(
                  gateway.url("/v1/transcriptions"), Gateway.TOKEN_A, TestAudio.wav(300, 11))
              .newBuilder()
              .header("X-Bolo-Request-Id", requestId)
              .build();
      try (Response response = client.newCall(request).execute()) {
        return response.code();
      }
    } finally {
      client.dispatcher().executorService().shutdown();
      client.connectionPool().evictAll();
    }
  }
}
