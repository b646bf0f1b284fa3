package dev.bolo.server.transcription;

import dev.bolo.audio.AudioContainer;
import dev.bolo.server.upload.AudioContent;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One piece of a long note as the provider is sent it: a 16-bit mono PCM WAV in a file of the
 * spool, written a stretch of samples at a time so that only the splitter's window is ever in
 * memory. Its {@link #sha256()} is the hash of its samples alone, the piece's identity in its work
 * key. The file is deleted on {@link #close()}. Written by one thread, then read by any.
 */
final class PieceFile implements AudioContent, AutoCloseable {

  /** Bytes of a canonical WAV header before the samples. */
  static final int HEADER_BYTES = 44;

  private final Path file;
  private final int sampleRate;
  private final long startMillis;
  private final MessageDigest samplesHash;
  private @Nullable OutputStream out;
  private long sampleCount;
  private @Nullable String sha256;

  private PieceFile(Path file, int sampleRate, long startMillis, OutputStream out) {
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
    Path file = Files.createTempFile(dir, "piece-", ".wav");
    try {
      OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 64 * 1024);
      out.write(new byte[HEADER_BYTES]);
      return new PieceFile(file, sampleRate, startMillis, out);
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
    OutputStream stream = Objects.requireNonNull(out, "piece already finished");
    byte[] pcm = new byte[count * 2];
    for (int i = 0; i < count; i++) {
      int value = Math.round(Math.clamp(samples[i], -1f, 1f) * Short.MAX_VALUE);
      pcm[2 * i] = (byte) value;
      pcm[2 * i + 1] = (byte) (value >> 8);
    }
    samplesHash.update(pcm);
    stream.write(pcm);
    sampleCount += count;
  }

  /** Ends the writing: the header gets its sizes, the piece its hash. */
  void finish() throws IOException {
    OutputStream stream = Objects.requireNonNull(out, "piece already finished");
    stream.close();
    out = null;
    try (RandomAccessFile header = new RandomAccessFile(file.toFile(), "rw")) {
      header.write(header(sampleCount * 2));
    }
    sha256 = HexFormat.of().formatHex(samplesHash.digest());
  }

  private byte[] header(long dataBytes) {
    ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    header.put("RIFF".getBytes(StandardCharsets.US_ASCII)).putInt((int) (36 + dataBytes));
    header.put("WAVE".getBytes(StandardCharsets.US_ASCII));
    header.put("fmt ".getBytes(StandardCharsets.US_ASCII)).putInt(16);
    header.putShort((short) 1).putShort((short) 1).putInt(sampleRate);
    header.putInt(sampleRate * 2).putShort((short) 2).putShort((short) 16);
    header.put("data".getBytes(StandardCharsets.US_ASCII)).putInt((int) dataBytes);
    return header.array();
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
    return HEADER_BYTES + sampleCount * 2;
  }

  @Override
  public InputStream open() throws IOException {
    return Files.newInputStream(file);
  }

  @Override
  public AudioContainer container() {
    return AudioContainer.WAV;
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
