package dev.bolo.server.transcription;

import dev.bolo.server.engine.InvalidSettingException;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.engine.SpeechEngine;
import dev.bolo.server.engine.Task;
import java.util.Locale;
import java.util.Objects;

/**
 * Where one kind of note (transcriptions, or translations into English) enters the use case: checks
 * a {@link NoteRequest} as every upload is checked, and makes it the {@link Transcriber.Note} that
 * {@link Transcriber#transcribe} takes, or answers why not. Immutable and thread safe.
 */
public final class Intake {

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
    String claimed = request.claimedSha256();
    String computed = request.audio().sha256();
    // Damaged on the way, or the client hashed other bytes: nothing is transcribed.
    if (claimed != null && !claimed.toLowerCase(Locale.ROOT).equals(computed)) {
      return new Acceptance.Refused(new NoteRefusal.HashMismatch(claimed, computed));
    }
    Settings canonical;
    try {
      canonical = settings.offered(task, request.fields());
    } catch (InvalidSettingException e) {
      return new Acceptance.Refused(NoteSettings.refusalOf(e));
    }
    // Refused before any work: no upstream call, no charge.
    if (task == Task.TRANSLATE && !engine.canTranslate()) {
      return new Acceptance.Refused(new NoteRefusal.TranslationUnsupported(engine.name()));
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
