package dev.bolo.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The SDK works on the lowest Java it claims with the OkHttp a Maven app gets: {@link Jdk17Program}
 * runs in a JVM of its own on the JDK 17 runtime, with the SDK's classes and its runtime class path
 * (okhttp 4.12.0), not the test class path (which has OkHttp 5).
 */
class Jdk17ProgramTest {

  @Test
  void aProgramOnJava17WithTheMavenClassPathTranscribesUploadsResumablyAndOkHttpResendsNothing()
      throws Exception {
    String java = Objects.requireNonNull(System.getProperty("bolo.jdk17.java"), "bolo.jdk17.java");
    Path runtime =
        Path.of(
            Objects.requireNonNull(
                System.getProperty("bolo.runtime.classpath"), "bolo.runtime.classpath"));
    String classPath =
        String.join(
            File.pathSeparator,
            Path.of("target", "classes").toString(),
            Path.of("target", "test-classes").toString(),
            Files.readString(runtime).trim());
    Path output = Files.createTempFile("jdk17-program", ".txt");

    Process process =
        new ProcessBuilder(List.of(java, "-cp", classPath, Jdk17Program.class.getName()))
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    boolean finished = process.waitFor(60, TimeUnit.SECONDS);
    if (!finished) {
      process.destroyForcibly();
    }
    String printed = Files.readString(output, StandardCharsets.UTF_8);
    Files.delete(output);

    assertThat(finished).as("finished in 60 s: %s", printed).isTrue();
    assertThat(process.exitValue()).as(printed).isZero();
    assertThat(printed)
        .contains(
            "java=17 okhttp=4.12.0 duration=1000 blocking=transcribed 2 async=transcribed 2"
                + " requests=4 resumable=transcribed 1 appended=320044/320044");
  }
}
