package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.App;
import dev.bolo.server.config.ServerConfig;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.Transcript;
import dev.bolo.server.testing.AnsweringEngine;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.TestAudio;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example Grafana dashboard and Prometheus alert rules in {@code docs/operations/} use only
 * metrics a running gateway exports: a renamed meter breaks this test, not an operator's pager.
 */
class OperationsDocsTest {

  private static final Path DOCS = Path.of("..", "docs", "operations");

  /** The gateway's own series and the JVM's; Prometheus' own ({@code up}) are not ours to check. */
  private static final Pattern METRIC = Pattern.compile("\\b(?:bolo|jvm|process|system)_\\w+");

  @TempDir Path dataDir;

  @Test
  void everyMetricTheDashboardAndTheAlertRulesUseIsExportedByARunningGateway() throws Exception {
    Set<String> used = new TreeSet<>();
    used.addAll(metricsIn(dashboardExpressions()));
    used.addAll(metricsIn(alertExpressions()));
    assertThat(used).hasSizeGreaterThan(15);

    Set<String> exported = exportedByAnOfflineGatewayAfterSomeTraffic();

    assertThat(exported).containsAll(used);
  }

  private static List<String> dashboardExpressions() throws Exception {
    JsonNode dashboard =
        new ObjectMapper().readTree(Files.readString(DOCS.resolve("grafana-dashboard.json")));
    List<String> expressions = new ArrayList<>();
    for (JsonNode panel : dashboard.path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        expressions.add(target.path("expr").asText());
      }
    }
    assertThat(expressions).hasSizeGreaterThan(10).doesNotContain("");
    return expressions;
  }

  /** Each rule's {@code expr}, on its line or in the block that follows {@code expr: |}. */
  private static List<String> alertExpressions() throws Exception {
    List<String> lines = Files.readAllLines(DOCS.resolve("prometheus-alerts.yml"));
    List<String> expressions = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (!line.startsWith("expr:")) {
        continue;
      }
      StringBuilder expression = new StringBuilder(line.substring("expr:".length()));
      int indent = lines.get(i).indexOf("expr:");
      for (int j = i + 1; j < lines.size() && indentOf(lines.get(j)) > indent; j++) {
        expression.append(' ').append(lines.get(j).strip());
      }
      expressions.add(expression.toString().replace("|", "").strip());
    }
    assertThat(expressions).hasSizeGreaterThan(5).doesNotContain("");
    return expressions;
  }

  private static int indentOf(String line) {
    return line.isBlank() ? Integer.MAX_VALUE : line.length() - line.stripLeading().length();
  }

  private static Set<String> metricsIn(List<String> expressions) {
    Set<String> names = new TreeSet<>();
    for (String expression : expressions) {
      Matcher m = METRIC.matcher(expression);
      while (m.find()) {
        names.add(m.group());
      }
    }
    return names;
  }

  /**
   * The offline engine's gauges exist only with that engine; an instant stand-in answers the notes
   * so that the engine's model need not finish loading.
   */
  private Set<String> exportedByAnOfflineGatewayAfterSomeTraffic() throws Exception {
    Map<String, String> env =
        Map.of(
            "BOLO_PORT",
            "0",
            "BOLO_ENGINE",
            "offline",
            "BOLO_DATA_DIR",
            dataDir.toString(),
            "BOLO_DEVICE_TOKENS",
            "alpha=" + Gateway.TOKEN_A);
    OkHttpClient client = new OkHttpClient();
    try (App app =
        App.builder(ServerConfig.fromMap(env))
            .engineView(
                real ->
                    new AnsweringEngine(
                        real, request -> new EngineResult.Transcribed(Transcript.plain("a note"))))
            .build()
            .start()) {
      String base = "http://127.0.0.1:" + app.port();
      byte[] note = TestAudio.wav(1_000, 9);
      for (String token : new String[] {Gateway.TOKEN_A, Gateway.TOKEN_A, "wrong-token-000"}) {
        try (Response response =
            client
                .newCall(Gateway.nativeUploadRequest(base + "/v1/transcriptions", token, note))
                .execute()) {
          assertThat(response.code()).isIn(200, 401);
        }
      }
      try (Response response =
          client.newCall(new Request.Builder().url(base + "/metrics").build()).execute()) {
        return response
            .body()
            .string()
            .lines()
            .filter(line -> !line.startsWith("#") && !line.isBlank())
            .map(line -> line.split("[{ ]", 2)[0])
            .collect(Collectors.toCollection(TreeSet::new));
      }
    } finally {
      client.dispatcher().executorService().shutdown();
      client.connectionPool().evictAll();
    }
  }
}
