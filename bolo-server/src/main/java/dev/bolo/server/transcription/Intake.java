package dev.bolo.server.transcription;

import dev.bolo.server.engine.InvalidSettingException;
import dev.bolo.server.engine.ResponseFormat;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.engine.SpeechEngine;
import dev.bolo.server.engine.Task;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * Where one kind of note (transcriptions, or translations into English) enters the use case: checks
 * a {@link NoteRequest} as every upload is checked, and makes it the {@link Transcriber.Note} that
 * {@link Transcriber#transcribe} takes, or answers why not. Immutable and thread safe.
 */
public final class Intake {

  private static final String WORD = "word";

  private final Task task;
  private final NoteSettings settings;
  private final SpeechEngine engine;

  Intake(Task task, NoteSettings settings, SpeechEngine engine) {
    this.task = Objects.requireNonNull(task, "task");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.engine = Objects.requireNonNull(engine, "engine");
  }

  /** A note to transcribe, or why it is not one. */
  public sealed interface Acceptance {
    record Accepted(Transcriber.Note note) implements Acceptance {}

    record Refused(NoteRefusal refusal) implements Acceptance {}
  }

  /** Checks the note's hash, its settings and the engine's ability, in that order. */
  public Acceptance accept(NoteRequest request) {
    return accept(request, true);
  }

  /**
   * Checks the note of a resumable upload whose last byte arrived, as {@link #accept} checks a
   * POST's, but its settings were checked when the upload was created: the model stays the one
   * asked for even if it is no longer offered, as for a POST that was already accepted.
   */
  Acceptance acceptUploaded(NoteRequest request) {
    return accept(request, false);
  }

  /**
   * Why a resumable upload with these settings cannot be created, as a POST with them would be
   * refused; empty when it can. They are checked once, at its creation.
   */
  Optional<NoteRefusal> refusalOf(SettingFields fields) {
    try {
      return beyondTheEngine(settings.offered(task, fields));
    } catch (InvalidSettingException e) {
      return Optional.of(NoteSettings.refusalOf(e));
    }
  }

  /**
   * Why the engine cannot do what well-formed settings ask, before any work: a translation of an
   * engine that cannot translate, word timestamps of a model that times no words.
   */
  private Optional<NoteRefusal> beyondTheEngine(Settings canonical) {
    if (task == Task.TRANSLATE && !engine.canTranslate()) {
      return Optional.of(new NoteRefusal.TranslationUnsupported(engine.name()));
    }
    if (canonical.responseFormat() == ResponseFormat.VERBOSE_JSON
        && canonical.timestampGranularities().contains(WORD)
        && !engine.timesWords(canonical.model())) {
      return Optional.of(
          new NoteRefusal.Malformed(
              "timestamp_granularities[]",
              "model "
                  + canonical.model()
                  + " times segments, not words: ask for timestamp_granularities[]=segment"));
    }
    return Optional.empty();
  }

  /**
   * The canonical settings of a resumable upload's fields, by the rule {@link #acceptUploaded}
   * follows: they were checked at its creation.
   */
  Settings settingsOfUploaded(SettingFields fields) {
    return settings.of(task, fields);
  }

  private Acceptance accept(NoteRequest request, boolean offeredNow) {
    String claimed = request.claimedSha256();
    String computed = request.audio().sha256();
    // Damaged on the way, or the client hashed other bytes: nothing is transcribed.
    if (claimed != null && !claimed.toLowerCase(Locale.ROOT).equals(computed)) {
      return new Acceptance.Refused(new NoteRefusal.HashMismatch(claimed, computed));
    }
    Settings canonical;
    try {
      canonical =
          offeredNow
              ? settings.offered(task, request.fields())
              : settings.of(task, request.fields());
    } catch (InvalidSettingException e) {
      return new Acceptance.Refused(NoteSettings.refusalOf(e));
    }
    // Refused before any work: no upstream call, no charge.
    Optional<NoteRefusal> beyond = beyondTheEngine(canonical);
    if (beyond.isPresent()) {
      return new Acceptance.Refused(beyond.get());
    }
    return new Acceptance.Accepted(
        new Transcriber.Note(
            request.device(),
            request.audio(),
            canonical,
            request.claimedDurationMs(),
            request.idempotencyKey(),
            request.requestId()));
  }
}
