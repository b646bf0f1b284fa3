package dev.bolo.server.transcription;

import dev.bolo.server.engine.InvalidSettingException;
import dev.bolo.server.engine.ModelAliases;
import dev.bolo.server.engine.Renditions;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.engine.SpeechEngine;
import dev.bolo.server.engine.Task;
import dev.bolo.server.work.WorkKey;
import java.util.List;
import java.util.Objects;

/**
 * The one rule that makes a note's canonical {@link Settings} of its fields, for an upload, a
 * resumable upload and a lookup alike: a lookup must find the work its upload made, so both must
 * read the same fields the same way. Immutable and thread safe.
 */
final class NoteSettings {

  private final SpeechEngine engine;
  private final List<String> allowedModels;
  private final ModelAliases aliases;

  NoteSettings(SpeechEngine engine, List<String> allowedModels, ModelAliases aliases) {
    this.engine = Objects.requireNonNull(engine, "engine");
    this.allowedModels = List.copyOf(allowedModels);
    this.aliases = Objects.requireNonNull(aliases, "aliases");
  }

  /** Other names a device may ask for the allowed models by. */
  ModelAliases aliases() {
    return aliases;
  }

  /**
   * The canonical settings of {@code fields}.
   *
   * @throws InvalidSettingException when a field cannot be read
   */
  Settings of(Task task, SettingFields fields) {
    String asked = fields.model();
    return Settings.canonical(
            engine.name(),
            engine.defaultModel(),
            // An alias is the model it stands for: one piece of work, whichever name was sent.
            asked == null ? null : aliases.resolve(asked.trim()),
            // A translation is always into English: OpenAI's endpoint takes no language, and one
            // sent anyway must not make a second piece of work of the same translation.
            task == Task.TRANSLATE ? null : fields.language(),
            fields.prompt(),
            fields.temperature(),
            fields.responseFormat(),
            fields.timestampGranularities())
        .withTask(task);
  }

  /**
   * The canonical settings of {@code fields} a device asks for now, with a model this gateway
   * offers.
   *
   * @throws InvalidSettingException when a field cannot be read or the model is not offered
   */
  Settings offered(Task task, SettingFields fields) {
    Settings settings = of(task, fields);
    settings.requireModelIn(allowedModels, aliases);
    settings.requireLanguageIn(engine.languages(), engine.name());
    return settings;
  }

  /**
   * The key of {@code device}'s work on {@code audioSha256} asked with {@code asked}: keyed by what
   * the engine is asked, so that formats rendered from one answer are one work (see {@link
   * Renditions}).
   */
  WorkKey keyOf(String device, Settings asked, String audioSha256) {
    return WorkKey.of(device, work(asked), audioSha256);
  }

  /** What the engine is asked for a note asked with {@code asked}. */
  Settings work(Settings asked) {
    return Renditions.work(asked, engine.richestFormat(asked.model()));
  }

  /** The refusal that answers a setting the rule turned away. */
  static NoteRefusal refusalOf(InvalidSettingException e) {
    String message = Objects.requireNonNullElse(e.getMessage(), "invalid " + e.parameter());
    return switch (e.kind()) {
      case MALFORMED -> new NoteRefusal.Malformed(e.parameter(), message);
      case NOT_OFFERED -> new NoteRefusal.NotOffered(e.parameter(), message);
    };
  }
}
