package dev.bolo.server.transcription;

import dev.bolo.server.dedup.WorkCoordinator;
import dev.bolo.server.engine.EngineLimits;
import dev.bolo.server.engine.EngineRequest;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.ForwardingEngine;
import dev.bolo.server.engine.SpeechEngine;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.Semaphore;
import java.util.function.LongSupplier;

/**
 * A {@link SpeechEngine} that sends a note longer or larger than its engine takes in one request
 * ({@link SpeechEngine#limits}) in pieces cut at its pauses ({@link PieceRun}, PROTOCOL.md rule
 * 11), and any other note to its engine whole: a decorator the composition wraps around the engine,
 * as an OkHttp interceptor wraps a call. Pieces run through the work coordinator, each under its
 * own key, at most {@link Config#perNote()} of one note and {@link Config#atOnce()} of the whole
 * gateway at a time; each waiting piece holds one file of at most the provider's request size in
 * the spool folder, so the disk they hold is bounded by {@code atOnce} of them. Everything else it
 * asks of, and answers as, the engine it wraps. Thread safe; one per gateway.
 */
public final class NotePieces extends ForwardingEngine {

  /**
   * How notes are sent in pieces; how large a piece may be is the engine's to say.
   *
   * @param perNote pieces of one note sent at once ({@code BOLO_MAX_PIECES_PER_NOTE})
   * @param atOnce pieces of all notes sent at once ({@code BOLO_MAX_CONCURRENT_PIECES})
   */
  public record Config(int perNote, int atOnce) {
    public Config {
      if (perNote < 1 || atOnce < perNote) {
        throw new IllegalArgumentException(
            "perNote must be >= 1 and atOnce >= perNote: " + perNote + ", " + atOnce);
      }
    }

    /** Four pieces of a note and sixteen of the gateway at once. */
    public static Config defaults() {
      return new Config(4, 16);
    }
  }

  private final WorkCoordinator coordinator;
  private final Config config;
  private final Path folder;
  private final Semaphore gatewayPieces;
  private final LongSupplier ticker;
  private final MeterRegistry metrics;

  /**
   * @param engine the engine the pieces (and the notes it takes whole) are sent to
   * @param folder where pieces wait for their provider call, in the instance's spool so that a
   *     restart deletes what a crash left
   * @param metrics where the pieces at work and their provider calls are counted
   */
  public NotePieces(
      SpeechEngine engine,
      WorkCoordinator coordinator,
      Config config,
      Path folder,
      LongSupplier ticker,
      MeterRegistry metrics) {
    super(engine);
    this.coordinator = Objects.requireNonNull(coordinator, "coordinator");
    this.config = Objects.requireNonNull(config, "config");
    this.folder = Objects.requireNonNull(folder, "folder");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.gatewayPieces = new Semaphore(config.atOnce(), true);
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    Gauge.builder(
            "bolo_pieces_running", gatewayPieces, free -> config.atOnce() - free.availablePermits())
        .description("Pieces of long notes being cut, sent or waiting for their provider call")
        .register(metrics);
  }

  /**
   * Transcribes the note in {@code request}, whole or in pieces; never throws for an expected
   * failure. A call that is no device's work ({@link EngineRequest#device()} empty) goes whole.
   */
  @Override
  public EngineResult transcribe(EngineRequest request) {
    EngineLimits limits = engine.limits(request.settings().model());
    if (request.device().isEmpty() || limits.admits(request.audio().size(), request.noteMillis())) {
      return engine.transcribe(request);
    }
    return new PieceRun(
            engine,
            coordinator,
            new PieceRun.Room(config.perNote(), gatewayPieces, folder, ticker),
            this::called,
            limits,
            request)
        .transcribe();
  }

  /** Counts one provider call made for a piece, by its result. */
  private void called(EngineResult result) {
    Counter.builder("bolo_piece_calls_total")
        .description("Provider calls made for pieces of long notes, by result (transcribed, …)")
        .tags(
            "engine",
            engine.name(),
            "result",
            result.getClass().getSimpleName().toLowerCase(Locale.ROOT))
        .register(metrics)
        .increment();
  }
}
