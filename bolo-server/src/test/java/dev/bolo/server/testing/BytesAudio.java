package dev.bolo.server.testing;

import dev.bolo.audio.AudioContainer;
import dev.bolo.server.upload.AudioContent;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Random;

/** A note held in memory, for tests of anything that reads {@link AudioContent}. */
public final class BytesAudio implements AudioContent {

  private final byte[] bytes;
  private final AudioContainer container;
  private final String sha256;

  private BytesAudio(byte[] bytes, AudioContainer container) {
    this.bytes = bytes.clone();
    this.container = container;
    try {
      this.sha256 =
          HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(this.bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** The given bytes, with the container sniffed from their first bytes as the server does. */
  public static BytesAudio sniffed(byte[] bytes) {
    return new BytesAudio(bytes, AudioContainer.sniff(bytes, bytes.length).orElseThrow());
  }

  /** The given bytes, labelled with the given container whatever they contain. */
  public static BytesAudio of(byte[] bytes, AudioContainer container) {
    return new BytesAudio(bytes, container);
  }

  /**
   * A WAV-looking note of {@code size} bytes: a RIFF/WAVE header followed by a seeded, repeatable
   * pattern, so that two notes of one size and seed are equal.
   */
  public static BytesAudio wav(int size, long seed) {
    if (size < AudioContainer.SNIFF_BYTES) {
      throw new IllegalArgumentException("size must be >= 12: " + size);
    }
    byte[] bytes = new byte[size];
    new Random(seed).nextBytes(bytes);
    System.arraycopy("RIFF".getBytes(StandardCharsets.US_ASCII), 0, bytes, 0, 4);
    System.arraycopy("WAVE".getBytes(StandardCharsets.US_ASCII), 0, bytes, 8, 4);
    return new BytesAudio(bytes, AudioContainer.WAV);
  }

  /** A copy of the bytes. */
  public byte[] bytes() {
    return bytes.clone();
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
    return sha256;
  }
}
