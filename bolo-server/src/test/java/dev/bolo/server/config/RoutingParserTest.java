package dev.bolo.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bolo.server.engine.EngineKind;
import dev.bolo.server.engine.route.EngineSpec;
import dev.bolo.server.engine.route.Route;
import dev.bolo.server.engine.route.Routing;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code BOLO_ENGINES}, {@code BOLO_ENGINE_<NAME>_*} and {@code BOLO_ROUTES} as an operator writes
 * them.
 */
class RoutingParserTest {

  @TempDir Path dir;

  private static Map<String, String> twoEngines() {
    Map<String, String> env = new HashMap<>();
    env.put("BOLO_ENGINES", "Primary, backup");
    env.put("BOLO_ENGINE_PRIMARY_KIND", "openai");
    env.put("BOLO_ENGINE_PRIMARY_API_KEY", "sk-primary");
    env.put("BOLO_ENGINE_PRIMARY_MAX_CONCURRENT", "64");
    env.put("BOLO_ENGINE_BACKUP_KIND", "OpenAI");
    env.put("BOLO_ENGINE_BACKUP_BASE_URL", "https://api.groq.com/openai/v1");
    env.put("BOLO_ENGINE_BACKUP_API_KEY", "gsk_backup");
    env.put(
        "BOLO_ROUTES",
        "whisper-1=primary/whisper-1, Backup/whisper-large-v3-turbo;"
            + " gpt-4o-transcribe=primary/gpt-4o-transcribe");
    return env;
  }

  private static Routing routing(Map<String, String> env) {
    return Objects.requireNonNull(ServerConfig.fromMap(env).routing());
  }

  @Test
  void enginesAndRoutesAreReadAndTheRoutesAreTheModelsOffered() {
    ServerConfig config = ServerConfig.fromMap(twoEngines());
    Routing routing = Objects.requireNonNull(config.routing());

    assertThat(routing.engines()).extracting(EngineSpec::name).containsExactly("primary", "backup");
    assertThat(routing.engines().get(0).maxConcurrent()).hasValue(64);
    assertThat(routing.routes().get(0).targets())
        .containsExactly(
            new Route.Hop("primary", "whisper-1"),
            new Route.Hop("backup", "whisper-large-v3-turbo"));
    assertThat(config.allowedModels()).containsExactly("whisper-1", "gpt-4o-transcribe");
  }

  @Test
  void aRouteWithAnOfflineTargetGetsTheDeadlineCapTheOfflineEngineNeedsForItsLongestNote() {
    Map<String, String> env = twoEngines();
    env.put("BOLO_ENGINES", "primary,backup,local");
    env.put("BOLO_ENGINE_LOCAL_KIND", "offline");
    env.put("BOLO_ROUTES", "whisper-1=primary/whisper-1,local/moonshine-tiny-en");

    // As the offline engine alone: 120 s + BOLO_OFFLINE_MAX_SECONDS (1 h).
    assertThat(ServerConfig.fromMap(env).deadlines().upstream().cap())
        .isEqualTo(java.time.Duration.ofMinutes(62));
    // Providers alone keep their 15 minutes.
    assertThat(ServerConfig.fromMap(twoEngines()).deadlines().upstream().cap())
        .isEqualTo(java.time.Duration.ofMinutes(15));
  }

  @Test
  void withoutEnginesTheOneEngineIsARouteOfOneTargetPerModelItOffers() {
    Routing offline = routing(Map.of("BOLO_ENGINE", "offline"));
    assertThat(offline.alone()).isTrue();
    assertThat(offline.engines())
        .containsExactly(
            new EngineSpec(
                "offline",
                EngineKind.OFFLINE,
                null,
                null,
                java.util.OptionalInt.empty(),
                java.util.OptionalInt.empty()));
    assertThat(offline.routes())
        .containsExactly(
            new Route("moonshine-tiny-en", List.of(new Route.Hop("offline", "moonshine-tiny-en"))));

    Routing openAi =
        routing(
            Map.of(
                "BOLO_ENGINE", "openai",
                "BOLO_OPENAI_API_KEY", "sk-test",
                "BOLO_OPENAI_MODELS", "gpt-4o-transcribe"));
    assertThat(openAi.engines().get(0).kind()).isEqualTo(EngineKind.OPENAI);
    assertThat(openAi.engines().get(0).apiKey()).isEqualTo("sk-test");
    assertThat(openAi.routes())
        .extracting(route -> route.targets().get(0).label())
        .containsExactly("openai/whisper-1", "openai/gpt-4o-transcribe");
    assertThat(routing(twoEngines()).alone()).isFalse();
  }

  @Test
  void aKeyComesFromItsFileAndAFileHoldingMoreThanAKeyIsRefused() throws Exception {
    Path key = Files.writeString(dir.resolve("key"), "sk-from-file\n");
    Map<String, String> env = twoEngines();
    env.remove("BOLO_ENGINE_PRIMARY_API_KEY");
    env.put("BOLO_ENGINE_PRIMARY_API_KEY_FILE", key.toString());

    assertThat(routing(env).engines().get(0).apiKey()).isEqualTo("sk-from-file");

    Files.writeString(key, "sk-one\nsk-two\n");
    assertThatThrownBy(() -> ServerConfig.fromMap(env))
        .hasMessageContaining("BOLO_ENGINE_PRIMARY_API_KEY");
  }

  @Test
  void mistakesAreNamedAtStart() {
    Map<String, String> unknown = twoEngines();
    unknown.put("BOLO_ROUTES", "whisper-1=primary/whisper-1,spare/whisper-1");
    Map<String, String> blankModel = twoEngines();
    blankModel.put("BOLO_ROUTES", "whisper-1=primary/whisper-1, backup/");
    Map<String, String> noRouteModel = twoEngines();
    noRouteModel.put("BOLO_ROUTES", " =primary/whisper-1");
    Map<String, String> noKind = twoEngines();
    noKind.remove("BOLO_ENGINE_BACKUP_KIND");
    Map<String, String> noRoutes = twoEngines();
    noRoutes.remove("BOLO_ROUTES");
    Map<String, String> openAiWithoutKey = twoEngines();
    openAiWithoutKey.remove("BOLO_ENGINE_PRIMARY_API_KEY");

    assertThatThrownBy(() -> ServerConfig.fromMap(unknown)).hasMessageContaining("'spare'");
    assertThatThrownBy(() -> ServerConfig.fromMap(blankModel)).hasMessageContaining("engine/model");
    assertThatThrownBy(() -> ServerConfig.fromMap(noRouteModel))
        .hasMessageContaining("model=engine/model");
    assertThatThrownBy(() -> ServerConfig.fromMap(noKind))
        .hasMessageContaining("BOLO_ENGINE_BACKUP_KIND");
    assertThatThrownBy(() -> ServerConfig.fromMap(noRoutes)).hasMessageContaining("BOLO_ROUTES");
    assertThatThrownBy(() -> ServerConfig.fromMap(openAiWithoutKey))
        .hasMessageContaining("BOLO_ENGINE_PRIMARY_API_KEY");
  }
}
