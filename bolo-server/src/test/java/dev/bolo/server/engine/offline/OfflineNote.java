package dev.bolo.server.engine.offline;

import dev.bolo.audio.AudioContainer;
import dev.bolo.server.engine.EngineRequest;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.testing.BytesAudio;
import java.time.Duration;
import java.util.List;

/** A note held in memory and the requests the offline engine's tests send with it. */
final class OfflineNote {

  private final BytesAudio audio;

  private OfflineNote(BytesAudio audio) {
    this.audio = audio;
  }

  /** Audio whose container is sniffed from its first bytes, as the server does. */
  static OfflineNote of(byte[] bytes) {
    return new OfflineNote(BytesAudio.sniffed(bytes));
  }

  /** Audio the server took for {@code container} whatever its bytes are. */
  static OfflineNote labelled(byte[] bytes, AudioContainer container) {
    return new OfflineNote(BytesAudio.of(bytes, container));
  }

  static Settings settings(String language, String responseFormat, List<String> granularities) {
    return Settings.canonical(
        OfflineEngine.NAME,
        OfflineEngine.MODEL,
        null,
        language,
        null,
        null,
        responseFormat,
        granularities);
  }

  EngineRequest request(Settings settings, Duration timeout) {
    return new EngineRequest(audio, settings, timeout, "test");
  }

  EngineRequest request() {
    return request(settings("", "json", List.of()), Duration.ofMinutes(5));
  }
}
