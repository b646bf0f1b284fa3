package dev.bolo.server.engine.offline;

import dev.bolo.audio.AudioContainer;
import dev.bolo.server.audio.AudioContent;
import dev.bolo.server.engine.EngineRequest;
import dev.bolo.server.engine.Settings;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** An uploaded note held in memory, and the requests tests send with it. */
final class TestAudio implements AudioContent {

  private final byte[] bytes;
  private final AudioContainer container;

  private TestAudio(byte[] bytes, AudioContainer container) {
    this.bytes = bytes.clone();
    this.container = container;
  }

  /** Audio whose container is sniffed from its first bytes, as the server does. */
  static TestAudio of(byte[] bytes) {
    Optional<AudioContainer> sniffed = AudioContainer.sniff(bytes, bytes.length);
    return new TestAudio(bytes, sniffed.orElseThrow());
  }

  /** Audio the server took for {@code container} whatever its bytes are. */
  static TestAudio labelled(byte[] bytes, AudioContainer container) {
    return new TestAudio(bytes, container);
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
    return new EngineRequest(this, settings, timeout, "test");
  }

  EngineRequest request() {
    return request(settings("", "json", List.of()), Duration.ofMinutes(5));
  }

  @Override
  public long size() {
    return bytes.length;
  }

  @Override
  public InputStream open() {
    return new ByteArrayInputStream(bytes);
  }

  @Override
  public AudioContainer container() {
    return container;
  }

  @Override
  public String sha256() {
    return "0".repeat(64);
  }
}
