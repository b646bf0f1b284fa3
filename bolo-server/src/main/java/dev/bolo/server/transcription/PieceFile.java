package dev.bolo.server.transcription;

import dev.bolo.audio.AudioContainer;
import dev.bolo.decode.FlacWriter;
import dev.bolo.server.upload.AudioContent;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One piece of a long note as the provider is sent it: mono 16-bit FLAC in a file of the spool
 * (lossless, about half the bytes of a WAV), written a stretch of samples at a time so that only
 * the splitter's window is ever in memory. Its {@link #sha256()} is the hash of its 16-bit samples
 * alone, the piece's identity in its work key. The file is deleted on {@link #close()}. Written by
 * one thread, then read by any.
 */
final class PieceFile implements AudioContent, AutoCloseable {

  private final Path file;
  private final int sampleRate;
  private final long startMillis;
  private final MessageDigest samplesHash;
  private @Nullable FlacWriter out;
  private long sampleCount;
  private long size;
  private @Nullable String sha256;

  private PieceFile(Path file, int sampleRate, long startMillis, FlacWriter out) {
    this.file = file;
    this.sampleRate = sampleRate;
    this.startMillis = startMillis;
    this.out = out;
    try {
      this.samplesHash = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

  /** A new piece starting {@code startMillis} into its note, in a new file under {@code dir}. */
  static PieceFile create(Path dir, int sampleRate, long startMillis) throws IOException {
    Files.createDirectories(dir);
    Path file = Files.createTempFile(dir, "piece-", ".flac");
    try {
      return new PieceFile(file, sampleRate, startMillis, FlacWriter.create(file, sampleRate));
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(file);
      throw e;
    }
  }

  /** Appends {@code count} samples of silence: the pause between two stretches of speech. */
  void appendSilence(long count) throws IOException {
    float[] zeros = new float[(int) Math.min(count, 16_000)];
    for (long left = count; left > 0; left -= zeros.length) {
      append(zeros, (int) Math.min(left, zeros.length));
    }
  }

  /** Appends the first {@code count} of {@code samples}, floats in [-1, 1]. */
  void append(float[] samples, int count) throws IOException {
    FlacWriter writer = Objects.requireNonNull(out, "piece already finished");
    short[] pcm = new short[count];
    byte[] bytes = new byte[count * 2];
    for (int i = 0; i < count; i++) {
      short value = (short) Math.round(Math.clamp(samples[i], -1f, 1f) * Short.MAX_VALUE);
      pcm[i] = value;
      bytes[2 * i] = (byte) value;
      bytes[2 * i + 1] = (byte) (value >> 8);
    }
    samplesHash.update(bytes);
    writer.write(pcm, count);
    sampleCount += count;
  }

  /** Ends the writing: the file is complete, the piece gets its size and hash. */
  void finish() throws IOException {
    FlacWriter writer = Objects.requireNonNull(out, "piece already finished");
    try {
      writer.finish();
    } finally {
      writer.close();
      out = null;
    }
    size = Files.size(file);
    sha256 = HexFormat.of().formatHex(samplesHash.digest());
  }

  /** Where the piece starts in its note. */
  long startMillis() {
    return startMillis;
  }

  /** The piece's length. */
  long millis() {
    return sampleCount * 1000 / sampleRate;
  }

  /** Where the piece ends in its note. */
  long endMillis() {
    return startMillis + millis();
  }

  @Override
  public long size() {
    return size;
  }

  @Override
  public InputStream open() throws IOException {
    return Files.newInputStream(file);
  }

  @Override
  public AudioContainer container() {
    return AudioContainer.FLAC;
  }

  @Override
  public String sha256() {
    return Objects.requireNonNull(sha256, "piece not finished");
  }

  @Override
  public void close() throws IOException {
    if (out != null) {
      out.close();
      out = null;
    }
    Files.deleteIfExists(file);
  }
}
