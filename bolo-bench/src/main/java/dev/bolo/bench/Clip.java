package dev.bolo.bench;

import dev.bolo.testkit.LibriVox;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * One recording with its reference transcript.
 *
 * @param name file name without extension
 * @param wav the WAV file
 * @param reference what was said, lower case words
 */
record Clip(String name, Path wav, String reference) {

  /** Bolo's sample notes: {@code NAME.wav} with {@code NAME.txt} beside it. */
  static List<Clip> sampleNotes(Path directory) throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      List<Clip> clips = new ArrayList<>();
      for (Path wav : files.filter(f -> f.toString().endsWith(".wav")).sorted().toList()) {
        String name = stem(wav);
        String text = Files.readString(directory.resolve(name + ".txt"), StandardCharsets.UTF_8);
        clips.add(new Clip(name, wav, text.trim()));
      }
      return clips;
    }
  }

  /**
   * Debian pocketsphinx-testdata's LibriVox clips: {@code NAME.wav} files and one {@code
   * transcription} file of lines {@code <s> words </s> (NAME)}.
   */
  static List<Clip> librivox(Path directory) throws IOException {
    List<Clip> clips = new ArrayList<>();
    for (LibriVox.Recording recording : LibriVox.recordings(directory)) {
      clips.add(new Clip(recording.name(), recording.wav(), recording.reference()));
    }
    return clips;
  }

  private static String stem(Path file) {
    String name = file.getFileName().toString();
    return name.substring(0, name.lastIndexOf('.'));
  }

  byte[] bytes() {
    try {
      return Files.readAllBytes(wav);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Length in seconds, from the WAV header's byte rate and data chunk size. */
  double seconds() {
    ByteBuffer in = ByteBuffer.wrap(bytes()).order(ByteOrder.LITTLE_ENDIAN);
    int byteRate = 0;
    int position = 12;
    while (position + 8 <= in.limit()) {
      String id = new String(in.array(), position, 4, StandardCharsets.US_ASCII);
      int size = in.getInt(position + 4);
      if (id.equals("fmt ")) {
        byteRate = in.getInt(position + 8 + 8);
      } else if (id.equals("data")) {
        return (double) Math.min(size, in.limit() - position - 8) / byteRate;
      }
      position += 8 + size + (size & 1);
    }
    throw new IllegalStateException("no data chunk in " + wav);
  }

  /** The PCM bytes of the data chunk. */
  byte[] pcm() {
    byte[] file = bytes();
    ByteBuffer in = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
    int position = 12;
    while (position + 8 <= file.length) {
      String id = new String(file, position, 4, StandardCharsets.US_ASCII);
      int size = in.getInt(position + 4);
      if (id.equals("data")) {
        int length = Math.min(size, file.length - position - 8);
        byte[] pcm = new byte[length];
        System.arraycopy(file, position + 8, pcm, 0, length);
        return pcm;
      }
      position += 8 + size + (size & 1);
    }
    throw new IllegalStateException("no data chunk in " + wav);
  }
}
