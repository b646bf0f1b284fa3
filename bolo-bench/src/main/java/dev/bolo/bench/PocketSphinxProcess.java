package dev.bolo.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's PocketSphinx ({@code apt-get install pocketsphinx pocketsphinx-en-us}), the C recogniser
 * of the same project with its packaged US English model, as a process per clip: the clip converted
 * to 16 kHz mono WAV by Debian's {@code ffmpeg}, then {@code pocketsphinx_continuous -infile}. The
 * other offline recogniser a Debian machine can install, measured on the same notes.
 */
final class PocketSphinxProcess implements ClipRecognizer {

  @Override
  public String transcribe(Clip clip) {
    Path wav = null;
    try {
      wav = Files.createTempFile("pocketsphinx-", ".wav");
      run(
          List.of(
              "ffmpeg",
              "-nostdin",
              "-loglevel",
              "error",
              "-y",
              "-i",
              clip.wav().toString(),
              "-ar",
              "16000",
              "-ac",
              "1",
              "-c:a",
              "pcm_s16le",
              wav.toString()));
      String text =
          run(List.of("pocketsphinx_continuous", "-infile", wav.toString(), "-logfn", "/dev/null"));
      return String.join(" ", text.strip().split("\\s+"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } finally {
      if (wav != null) {
        try {
          Files.deleteIfExists(wav);
        } catch (IOException ignored) {
          // a temporary file
        }
      }
    }
  }

  private static String run(List<String> command) throws IOException, InterruptedException {
    Process process =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    byte[] out = process.getInputStream().readAllBytes();
    if (!process.waitFor(10, TimeUnit.MINUTES) || process.exitValue() != 0) {
      process.destroyForcibly();
      throw new IOException(command.get(0) + " failed on " + command);
    }
    return new String(out, StandardCharsets.UTF_8);
  }
}
