package dev.bolo.server;

import dev.bolo.server.config.ServerConfig;
import dev.bolo.server.engine.EngineKind;
import dev.bolo.server.engine.ProviderSockets;
import dev.bolo.server.engine.ProviderSpans;
import dev.bolo.server.engine.SpeechEngine;
import dev.bolo.server.engine.TracedEngine;
import dev.bolo.server.engine.deepgram.DeepgramEngine;
import dev.bolo.server.engine.gemini.GeminiConfig;
import dev.bolo.server.engine.gemini.GeminiEngines;
import dev.bolo.server.engine.offline.OfflineConfig;
import dev.bolo.server.engine.offline.OfflineEngine;
import dev.bolo.server.engine.openai.OpenAiCompatibleEngine;
import dev.bolo.server.engine.openai.OpenAiConfig;
import dev.bolo.server.engine.route.CallsPerMinute;
import dev.bolo.server.engine.route.EngineSpec;
import dev.bolo.server.engine.route.RoutedEngine;
import dev.bolo.server.engine.route.Routing;
import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.RateDecision;
import dev.bolo.server.ledger.RateLimiter;
import dev.bolo.server.time.Sleeper;
import dev.bolo.server.tracing.NoteSpans;
import dev.bolo.server.tracing.Tracing;
import dev.bolo.server.upload.TransferBuffers;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import okhttp3.ConnectionPool;
import okhttp3.OkHttpClient;

/**
 * Makes the engine the configuration names: the one engine of {@code BOLO_ENGINE}, or several
 * behind routes. Stateless.
 */
final class Engines {

  /**
   * Idle provider connections kept for reuse: enough for the calls a busy instance runs at once.
   */
  private static final int PROVIDER_IDLE_CONNECTIONS = 2_048;

  private Engines() {}

  /**
   * Keeps a connection per concurrent call alive between calls: OkHttp's default keeps 5, so under
   * load most provider calls would open a new connection and close it afterwards.
   */
  static OkHttpClient providerClient(
      ServerConfig config, TransferBuffers transfers, Tracing tracing) {
    OkHttpClient.Builder provider =
        new OkHttpClient.Builder()
            .connectTimeout(Duration.ofSeconds(10))
            .connectionPool(new ConnectionPool(PROVIDER_IDLE_CONNECTIONS, 5, TimeUnit.MINUTES));
    Routing routing = config.routing();
    if (routing.alone()
        && routing.engines().get(0).kind() == EngineKind.OPENAI
        && ProviderSockets.helps(config.openAi().baseUrl())) {
      provider.socketFactory(new ProviderSockets(transfers));
    }
    if (tracing.isOn()) {
      provider.addInterceptor(new ProviderSpans(tracing.tracer(), tracing.propagator()));
    }
    return provider.build();
  }

  /**
   * The engine of {@code config}, its providers called through {@code http}; routes keep their
   * deadlines and breakers on {@code ticker}, a shared limit of calls per minute on {@code clock};
   * an engine that polls pauses through {@code sleeper}. With traces on, each call to an engine (a
   * route's target, or the one engine) is an attempt's span.
   */
  static SpeechEngine create(
      ServerConfig config,
      OkHttpClient http,
      Clock clock,
      LongSupplier ticker,
      Sleeper sleeper,
      Tracing tracing) {
    Routing routing = config.routing();
    if (routing.alone()) {
      // The one engine of BOLO_ENGINE is served as itself: its name in work keys, as always.
      return traced(create(routing.engines().get(0), config, http, ticker, sleeper), tracing);
    }
    return RoutedEngine.of(
        routing,
        spec -> traced(create(spec, config, http, ticker, sleeper), spec.name(), tracing),
        (name, max) -> perMinute(config, name, max, clock, ticker),
        ticker);
  }

  private static SpeechEngine traced(SpeechEngine engine, Tracing tracing) {
    return traced(engine, engine.name(), tracing);
  }

  private static SpeechEngine traced(SpeechEngine engine, String target, Tracing tracing) {
    return tracing.isOn()
        ? TracedEngine.of(engine, target, tracing.tracer(), NoteSpans::enter)
        : engine;
  }

  /**
   * An engine's calls per minute: shared by every instance through Redis when the store is Redis
   * (the same token bucket as a device's requests, under the engine's name), else this instance's
   * own.
   */
  private static CallsPerMinute perMinute(
      ServerConfig config, String engine, int max, Clock clock, LongSupplier ticker) {
    if (config.store().kind() != ServerConfig.StoreKind.REDIS) {
      return CallsPerMinute.local(engine, max, ticker);
    }
    RateLimiter shared =
        RateLimiter.sharedIn("engine", config.store().redisEndpoint(), max, clock, ticker);
    Device bucket = new Device(engine);
    return new CallsPerMinute() {
      @Override
      public Duration tryStart() {
        return shared.admit(bucket) instanceof RateDecision.Limited limited
            ? limited.retryAfter()
            : Duration.ZERO;
      }

      @Override
      public void close() {
        try {
          shared.close();
        } catch (Exception e) {
          // Closing at shutdown: nothing more to do.
        }
      }
    };
  }

  /**
   * One engine, alone or of several: its kind's settings (OpenAI's, Gemini's or the offline
   * engine's variables) under the spec's address and key; a route's targets name their models.
   */
  private static SpeechEngine create(
      EngineSpec spec,
      ServerConfig config,
      OkHttpClient http,
      LongSupplier ticker,
      Sleeper sleeper) {
    return switch (spec.kind()) {
      case OPENAI ->
          OpenAiCompatibleEngine.create(
              new OpenAiConfig(
                      Objects.requireNonNullElse(spec.baseUrl(), "https://api.openai.com/v1"),
                      spec.apiKey(),
                      config.openAi().defaultModel(),
                      config.openAi().defaultLanguage())
                  .withLimits(config.openAi().limits()),
              http);
      case AZURE ->
          OpenAiCompatibleEngine.create(
              new OpenAiConfig(
                      Objects.requireNonNull(spec.baseUrl()),
                      spec.apiKey(),
                      config.openAi().defaultModel(),
                      config.openAi().defaultLanguage(),
                      OpenAiConfig.AZURE_API_VERSION)
                  .withLimits(config.openAi().limits()),
              http);
      case DEEPGRAM ->
          new DeepgramEngine(
              Objects.requireNonNullElse(spec.baseUrl(), DeepgramEngine.DEFAULT_BASE_URL),
              spec.apiKey(),
              http);
      case GEMINI -> {
        // The configuration refuses a gemini engine without a key.
        GeminiConfig gemini =
            GeminiConfig.of(Objects.requireNonNull(spec.apiKey()), http)
                .withModel(config.gemini().model())
                .withLimits(config.gemini().limits());
        yield GeminiEngines.create(
            spec.baseUrl() == null ? gemini : gemini.withBaseUrl(spec.baseUrl()), ticker, sleeper);
      }
      case OFFLINE -> offline(config, ticker);
    };
  }

  /** The offline engine, alone or a route's target, taking notes up to its configured longest. */
  private static SpeechEngine offline(ServerConfig config, LongSupplier ticker) {
    return OfflineEngine.create(
        OfflineConfig.defaults().withLongestNoteSeconds(config.offline().maxSeconds()), ticker);
  }
}
