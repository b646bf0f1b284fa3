package dev.bolo.server.transcription;

import dev.bolo.server.dedup.WorkCoordinator;
import dev.bolo.server.engine.SpeechEngine;
import dev.bolo.server.ledger.Ledger;
import dev.bolo.server.ledger.UsageRecord;
import dev.bolo.server.work.WorkKey;
import dev.bolo.server.work.WorkResult;
import java.time.Clock;
import java.util.Locale;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps account of every answer a note gets, whoever made it: counted in the meters by outcome and
 * replay, and written as the device's usage row. Thread safe.
 */
final class AnswerRecords {

  private static final Logger log = LoggerFactory.getLogger(AnswerRecords.class);

  private final SpeechEngine engine;
  private final Ledger ledger;
  private final Clock clock;
  private final TranscriptionMeters meters;

  AnswerRecords(SpeechEngine engine, Ledger ledger, Clock clock, TranscriptionMeters meters) {
    this.engine = Objects.requireNonNull(engine, "engine");
    this.ledger = Objects.requireNonNull(ledger, "ledger");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.meters = Objects.requireNonNull(meters, "meters");
  }

  /**
   * Counts and records how {@code note} was served, and makes its answer of it; a wait that was
   * withdrawn (a cancelled job's) answers nobody and records nothing.
   */
  Transcriber.Answer record(
      Transcriber.Note note, WorkKey key, CountedLength length, WorkCoordinator.Served served) {
    if (WorkCoordinator.withdrew(served)) {
      return new Transcriber.Answer(served.outcome(), false, length.millis());
    }
    String outcome =
        switch (served.outcome()) {
          case WorkResult.Success s -> "ok";
          case WorkResult.Refused r -> r.problem().name().toLowerCase(Locale.ROOT);
        };
    meters.answered(outcome, served.replay(), length.millis());
    try {
      ledger.record(
          new UsageRecord(
              note.device().name(),
              key.asString(),
              key.audioSha256(),
              length.millis(),
              length.measured(),
              engine.name(),
              outcome,
              served.replay(),
              note.requestId(),
              clock.instant()));
    } catch (RuntimeException e) {
      // The transcript is worth more to the user than the usage row: answer anyway.
      log.error("could not record usage: {}", e.getMessage());
    }
    return new Transcriber.Answer(served.outcome(), served.replayed(), length.millis());
  }
}
