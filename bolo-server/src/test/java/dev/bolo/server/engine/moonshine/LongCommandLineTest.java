package dev.bolo.server.engine.moonshine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * ONNX Runtime 1.29.0's Java binding crashed the JVM (SIGSEGV, no error file) at its first session
 * when the process's command line was longer than about 4 KB, as a class path of absolute jar paths
 * makes it; 1.28.0 does not. This loads the recogniser in a JVM started with a 6 KB command line.
 */
class LongCommandLineTest {

  @Test
  void theRecognizerLoadsInAJvmWithALongCommandLine() throws Exception {
    String padding = "x".repeat(6_000);
    Process child =
        new ProcessBuilder(
                List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--enable-native-access=ALL-UNNAMED",
                    "-Dbolo.padding=" + padding,
                    "-cp",
                    System.getProperty("java.class.path"),
                    LoadAndRecognize.class.getName(),
                    Notes.MODELS.path().toString()))
            .redirectErrorStream(true)
            .start();
    String output = read(child);
    assertThat(child.waitFor(2, TimeUnit.MINUTES)).as("child finished").isTrue();

    assertThat(child.exitValue()).as(output).isZero();
    assertThat(output).contains("loaded and recognised: no segments");
  }

  private static String read(Process child) throws IOException {
    return new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
  }

  /** The child: loads the models from the folder given and recognises a second of silence. */
  static final class LoadAndRecognize {
    private LoadAndRecognize() {}

    public static void main(String[] args) throws Exception {
      try (MoonshineRecognizer recognizer =
          MoonshineRecognizer.load(
              new ModelFolder(Path.of(args[0])), MoonshineRecognizer.Options.defaults())) {
        TimedTranscript heard = recognizer.recognize(new float[16_000]);
        System.out.println(
            "loaded and recognised: " + (heard.segments().isEmpty() ? "no segments" : heard));
      }
    }
  }
}
