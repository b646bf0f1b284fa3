package dev.bolo.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.engine.gemini.GeminiConfig;
import dev.bolo.server.engine.gemini.GeminiEngines;
import dev.bolo.server.engine.route.CallsPerMinute;
import dev.bolo.server.engine.route.EngineSpec;
import dev.bolo.server.engine.route.Route;
import dev.bolo.server.engine.route.RoutedEngine;
import dev.bolo.server.engine.route.Routing;
import dev.bolo.server.health.Readiness;
import dev.bolo.server.testing.BytesAudio;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.junit5.StartStop;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The gateway's own bound on provider answers held at once is the gateway's trouble, whichever
 * provider's answer meets it: a Gemini target is not blamed for it (its breaker stays closed) and
 * the note is not failed over to the next target as if Gemini were down. Beside {@link
 * AnswerBudget}, so that the test can hold the budget's bytes as another answer would.
 */
class GeminiRouteSaturationTest {

  private static final long MIB = 1024 * 1024;

  @StartStop final MockWebServer gemini = new MockWebServer();

  /** No wait for room: an answer that does not fit is refused at once. */
  private final AnswerBudget budget = new AnswerBudget(MIB, Duration.ZERO, System::nanoTime);

  private final AtomicInteger backupCalls = new AtomicInteger();
  private RoutedEngine engine;

  @BeforeEach
  void start() {
    engine = routes();
  }

  @AfterEach
  void close() {
    engine.close();
  }

  private RoutedEngine routes() {
    OkHttpClient http = AnswerLimit.applyTo(new OkHttpClient(), 32 * MIB, budget);
    Routing routing =
        Routing.of(
            List.of(
                new EngineSpec(
                    "google",
                    EngineKind.GEMINI,
                    null,
                    "key",
                    OptionalInt.empty(),
                    OptionalInt.empty()),
                new EngineSpec(
                    "backup",
                    EngineKind.OPENAI,
                    null,
                    "key",
                    OptionalInt.empty(),
                    OptionalInt.empty())),
            List.of(
                new Route(
                    "notes",
                    List.of(
                        new Route.Hop("google", "gemini-2.5-flash"),
                        new Route.Hop("backup", "whisper-1")))));
    return RoutedEngine.of(
        routing,
        spec ->
            spec.name().equals("google")
                ? GeminiEngines.create(
                    GeminiConfig.of("key", http).withBaseUrl(gemini.url("/").toString()),
                    () -> 0L,
                    pause -> {})
                : new Backup(backupCalls),
        (name, max) -> CallsPerMinute.local(name, max, () -> 0L),
        () -> 0L);
  }

  private EngineResult transcribe(long seed) {
    Settings settings =
        Settings.canonical("routes", "notes", null, null, null, null, null, List.of());
    return engine.transcribe(
        new EngineRequest(BytesAudio.wav(1000, seed), settings, Duration.ofSeconds(30), "req"));
  }

  private static MockResponse transcript(int chars) {
    return new MockResponse.Builder()
        .code(200)
        .setHeader("Content-Type", "application/json")
        .body(
            "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\""
                + "a".repeat(chars)
                + "\"}]},\"finishReason\":\"STOP\"}]}")
        .build();
  }

  @Test
  void noRoomForGeminisAnswerIsTheGatewaysOwnBusyAndNeitherOpensItsBreakerNorFailsOver()
      throws Exception {
    for (int i = 0; i < 6; i++) {
      gemini.enqueue(transcript(600_000));
    }

    try (AnswerBudget.Hold other = new AnswerBudget.Hold()) {
      other.charge(budget, 700_000);
      for (int i = 0; i < 5; i++) {
        assertThat(transcribe(i))
            .isEqualTo(
                new EngineResult.Saturated(
                    "the gateway is busy reading other large provider answers",
                    AnswerBudget.RETRY_AFTER));
      }
    }

    assertThat(backupCalls).as("no note failed over").hasValue(0);
    assertThat(engine.readiness()).isEqualTo(Readiness.ok());
    // Gemini is asked the next note at once: nothing counted it as down.
    assertThat(transcribe(9)).isInstanceOf(EngineResult.Transcribed.class);
    assertThat(gemini.getRequestCount()).isEqualTo(6);
    assertThat(backupCalls).hasValue(0);
  }

  /** A backup that transcribes every note it is given, counting them. */
  private record Backup(AtomicInteger calls) implements SpeechEngine {
    @Override
    public String name() {
      return "openai";
    }

    @Override
    public String defaultModel() {
      return "whisper-1";
    }

    @Override
    public EngineResult transcribe(EngineRequest request) {
      calls.incrementAndGet();
      return new EngineResult.Transcribed(Transcript.plain("from the backup"));
    }
  }
}
