package dev.bolo.bench;

import dev.bolo.audio.AudioContainer;
import dev.bolo.server.engine.EngineRequest;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.engine.SpeechEngine;
import dev.bolo.server.engine.offline.OfflineConfig;
import dev.bolo.server.engine.offline.OfflineEngine;
import dev.bolo.server.upload.AudioContent;
import edu.cmu.sphinx.api.Configuration;
import edu.cmu.sphinx.api.SpeechResult;
import edu.cmu.sphinx.api.StreamSpeechRecognizer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;

/** What the benchmark measures: something that turns a clip into text. */
interface ClipRecognizer extends AutoCloseable {

  String transcribe(Clip clip);

  @Override
  default void close() {}

  /**
   * Sphinx4 as its documentation shows it: a {@code StreamSpeechRecognizer} with the default
   * configuration, started and stopped for every clip.
   */
  static ClipRecognizer sphinx4Defaults() throws IOException {
    Configuration configuration = new Configuration();
    configuration.setAcousticModelPath("resource:/edu/cmu/sphinx/models/en-us/en-us");
    configuration.setDictionaryPath("resource:/edu/cmu/sphinx/models/en-us/cmudict-en-us.dict");
    configuration.setLanguageModelPath("resource:/edu/cmu/sphinx/models/en-us/en-us.lm.bin");
    StreamSpeechRecognizer recognizer = new StreamSpeechRecognizer(configuration);
    return clip -> {
      recognizer.startRecognition(new ByteArrayInputStream(clip.pcm()));
      StringBuilder text = new StringBuilder();
      SpeechResult result;
      while ((result = recognizer.getResult()) != null) {
        text.append(result.getHypothesis()).append(' ');
      }
      recognizer.stopRecognition();
      return text.toString().trim();
    };
  }

  /** Bolo's offline engine, through its public contract; waits until the model has loaded. */
  static ClipRecognizer engine(OfflineConfig config) throws InterruptedException {
    return engine(config, Duration.ofMinutes(10));
  }

  /** The engine, giving each clip {@code timeout}. */
  static ClipRecognizer engine(OfflineConfig config, Duration timeout) throws InterruptedException {
    SpeechEngine engine = OfflineEngine.create(config, System::nanoTime);
    while (!engine.readiness().isReady()) {
      if (engine.readiness().detail().contains("failed")) {
        throw new IllegalStateException(engine.readiness().detail());
      }
      Thread.sleep(100);
    }
    Settings settings =
        Settings.canonical(
            OfflineEngine.NAME, OfflineEngine.MODEL, null, "en", null, null, "json", List.of());
    return new ClipRecognizer() {
      @Override
      public String transcribe(Clip clip) {
        byte[] bytes = clip.bytes();
        AudioContent audio = new InMemoryAudio(bytes);
        EngineResult result =
            engine.transcribe(new EngineRequest(audio, settings, timeout, "bench"));
        if (result instanceof EngineResult.Transcribed transcribed) {
          return transcribed.text();
        }
        throw new IllegalStateException(clip.name() + ": " + result);
      }

      @Override
      public void close() {
        engine.close();
      }
    };
  }

  /** A WAV file held in memory. */
  final class InMemoryAudio implements AudioContent {
    private final byte[] bytes;

    InMemoryAudio(byte[] bytes) {
      this.bytes = bytes;
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
      return AudioContainer.WAV;
    }

    @Override
    public String sha256() {
      return "";
    }
  }
}
