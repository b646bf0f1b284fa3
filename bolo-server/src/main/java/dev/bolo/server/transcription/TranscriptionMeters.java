package dev.bolo.server.transcription;

import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.work.Replay;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The meters of the transcription use case: answers by outcome and replay, replays by kind, engine
 * calls with their latency, and the length of the notes worked on. Latency and length are
 * histograms with fixed buckets, so an operator can alert on a percentile across instances. Thread
 * safe.
 */
final class TranscriptionMeters {

  /**
   * Engine latency buckets: a short note on a hosted engine takes under a second, a long one on the
   * offline engine minutes, and the engine deadline's default cap is 15 minutes.
   */
  private static final Duration[] UPSTREAM_BUCKETS =
      Arrays.stream(
              new long[] {
                250, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 30_000, 60_000, 120_000, 300_000,
                900_000
              })
          .mapToObj(Duration::ofMillis)
          .toArray(Duration[]::new);

  /**
   * Note length buckets in seconds: voice notes are mostly under a minute; the offline engine's
   * default limit is 600 s and OpenAI's upload limit holds about 25 minutes of compressed speech.
   */
  private static final double[] NOTE_BUCKETS_SECONDS = {
    1, 5, 10, 30, 60, 120, 300, 600, 1_200, 1_800, 3_600
  };

  private final MeterRegistry registry;

  TranscriptionMeters(MeterRegistry registry) {
    this.registry = registry;
  }

  /** One engine call that ended with {@code result} after {@code nanos}. */
  void upstreamCall(String engine, EngineResult result, long nanos) {
    // A container the engine cannot read is refused before anything is sent or decoded (415):
    // counting it as a call would make a client's wrong file look like engine load.
    if (result instanceof EngineResult.UnsupportedAudio) {
      return;
    }
    String kind = result.getClass().getSimpleName().toLowerCase(Locale.ROOT);
    Timer.builder("bolo_upstream_seconds")
        .description("Time one engine call took, by engine and result (transcribed, rejected, …)")
        .tags("engine", engine, "result", kind)
        .serviceLevelObjectives(UPSTREAM_BUCKETS)
        .register(registry)
        .record(nanos, TimeUnit.NANOSECONDS);
    Counter.builder("bolo_upstream_calls_total")
        .description(
            "Calls to the speech engine, by engine and result; a duplicate never makes one")
        .tags("engine", engine, "result", kind)
        .register(registry)
        .increment();
  }

  /**
   * One transcription request answered.
   *
   * @param outcome {@code ok} or the problem's code
   * @param replay where the answer came from
   * @param noteMillis the note's length as charged or estimated
   */
  void answered(String outcome, Replay replay, long noteMillis) {
    String from = replay.name().toLowerCase(Locale.ROOT);
    Counter.builder("bolo_transcriptions_total")
        .description(
            "Transcription requests answered, by outcome (ok or the error code) and replay (none,"
                + " joined: in-flight work, cached: a stored result)")
        .tags("outcome", outcome, "replay", from)
        .register(registry)
        .increment();
    switch (replay) {
      case NONE ->
          DistributionSummary.builder("bolo_note_duration")
              .baseUnit("seconds")
              .description("Length of the notes the gateway worked on (replays not counted)")
              .serviceLevelObjectives(NOTE_BUCKETS_SECONDS)
              .register(registry)
              .record(noteMillis / 1000.0);
      case JOINED, CACHED ->
          Counter.builder("bolo_replays_total")
              .description(
                  "Requests answered from other work: joined = in-flight work, cached = a stored"
                      + " result")
              .tags("kind", from)
              .register(registry)
              .increment();
    }
  }

  /**
   * One resend that asked for its transcript without the audio.
   *
   * @param found {@code finished}, {@code running} or {@code absent}
   */
  void lookedUp(String found) {
    Counter.builder("bolo_lookups_total")
        .description(
            "Resends that asked for their transcript without the audio, by what they found"
                + " (finished, running, absent)")
        .tags("found", found)
        .register(registry)
        .increment();
  }
}
