package dev.bolo.bench;

import dev.bolo.audio.SeekableSource;
import dev.bolo.decode.PcmDecoder;
import dev.bolo.server.engine.moonshine.ModelFolder;
import dev.bolo.server.engine.moonshine.MoonshineRecognizer;
import dev.bolo.server.engine.moonshine.TimedTranscript;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * Bolo's Moonshine recogniser in this process ({@code moonshine-java}, or {@code moonshine-java:N}
 * for N intra-op threads): the clip is decoded by FFmpeg as the gateway decodes a note and read
 * through Silero VAD into Moonshine an utterance at a time. The models come from {@code models/}
 * under the working directory, or the {@code bolo.models} system property.
 */
final class MoonshineClips implements ClipRecognizer {

  private final MoonshineRecognizer recognizer;

  MoonshineClips(int threads) {
    ModelFolder folder =
        System.getProperty(ModelFolder.PROPERTY) != null
            ? ModelFolder.fromSystemProperties()
            : new ModelFolder(Path.of("models"));
    MoonshineRecognizer.Options defaults = MoonshineRecognizer.Options.defaults();
    this.recognizer =
        MoonshineRecognizer.load(
            folder, new MoonshineRecognizer.Options(threads, defaults.limits()));
  }

  /** The configuration's recogniser: {@code moonshine-java} or {@code moonshine-java:N}. */
  static MoonshineClips named(String config) {
    int colon = config.indexOf(':');
    return new MoonshineClips(colon < 0 ? 1 : Integer.parseInt(config.substring(colon + 1)));
  }

  MoonshineRecognizer recognizer() {
    return recognizer;
  }

  @Override
  public String transcribe(Clip clip) {
    return timed(clip.wav()).text();
  }

  /** The note at {@code file}, decoded and recognised as it is read. */
  TimedTranscript timed(Path file) {
    try (PcmDecoder decoder =
        PcmDecoder.open(SeekableSource.of(java.nio.file.Files.readAllBytes(file)), 16_000)) {
      return recognizer.recognize(decoder, () -> false, segment -> {});
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    try {
      recognizer.close();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
