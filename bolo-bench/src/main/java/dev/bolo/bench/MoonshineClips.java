package dev.bolo.bench;

import dev.bolo.audio.SeekableSource;
import dev.bolo.decode.PcmDecoder;
import dev.bolo.server.engine.moonshine.Decoding;
import dev.bolo.server.engine.moonshine.ModelFolder;
import dev.bolo.server.engine.moonshine.MoonshineRecognizer;
import dev.bolo.server.engine.moonshine.SpeechLimits;
import dev.bolo.server.engine.moonshine.TimedTranscript;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Bolo's Moonshine recogniser in this process ({@code moonshine-java}, or {@code moonshine-java:N}
 * for N intra-op threads), with the gateway's settings or others to tune them: {@code
 * moonshine-java:N/KEY=VALUE,…} with keys {@code beam} (width), {@code lp} (length penalty), {@code
 * noempty} (0 or 1), {@code threshold} and {@code release} (the detector's), {@code padding},
 * {@code pause} and {@code speech} (milliseconds). The clip is decoded by FFmpeg as the gateway
 * decodes a note and read through Silero VAD into Moonshine an utterance at a time. The models come
 * from {@code models/} under the working directory, or the {@code bolo.models} system property.
 */
final class MoonshineClips implements ClipRecognizer {

  private final MoonshineRecognizer recognizer;

  MoonshineClips(MoonshineRecognizer.Options options) {
    ModelFolder folder =
        System.getProperty(ModelFolder.PROPERTY) != null
            ? ModelFolder.fromSystemProperties()
            : new ModelFolder(Path.of("models"));
    this.recognizer = MoonshineRecognizer.load(folder, options);
  }

  /** The configuration's recogniser: {@code moonshine-java[:N][/KEY=VALUE,…]}. */
  static MoonshineClips named(String config) {
    int slash = config.indexOf('/');
    String head = slash < 0 ? config : config.substring(0, slash);
    int colon = head.indexOf(':');
    int threads = colon < 0 ? 1 : Integer.parseInt(head.substring(colon + 1));
    Map<String, String> settings = new HashMap<>();
    if (slash >= 0) {
      for (String pair : config.substring(slash + 1).split(",")) {
        String[] kv = pair.split("=", 2);
        settings.put(kv[0], kv[1]);
      }
    }
    SpeechLimits l = SpeechLimits.defaults();
    Decoding d = Decoding.defaults();
    SpeechLimits limits =
        new SpeechLimits(
            l.longest(),
            millis(settings.remove("pause"), l.shortestPause()),
            millis(settings.remove("padding"), l.padding()),
            millis(settings.remove("speech"), l.shortestSpeech()),
            Float.parseFloat(settings.getOrDefault("threshold", "" + l.threshold())),
            Float.parseFloat(settings.getOrDefault("release", "" + l.releaseThreshold())));
    settings.remove("threshold");
    settings.remove("release");
    Decoding decoding =
        new Decoding(
            Integer.parseInt(settings.getOrDefault("beam", "" + d.beamWidth())),
            Double.parseDouble(settings.getOrDefault("lp", "" + d.lengthPenalty())),
            settings.getOrDefault("noempty", d.noEmptyUtterance() ? "1" : "0").equals("1"));
    settings.keySet().removeAll(java.util.List.of("beam", "lp", "noempty"));
    if (!settings.isEmpty()) {
      throw new IllegalArgumentException("unknown settings " + settings.keySet() + " in " + config);
    }
    return new MoonshineClips(new MoonshineRecognizer.Options(threads, limits, decoding));
  }

  private static Duration millis(@Nullable String value, Duration otherwise) {
    return value == null ? otherwise : Duration.ofMillis(Long.parseLong(value));
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
