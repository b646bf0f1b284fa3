package dev.bolo.client;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalLong;
import okhttp3.MediaType;
import okhttp3.RequestBody;
import org.jspecify.annotations.Nullable;

/**
 * The audio of one voice note, from a file or from bytes, with its SHA-256 (computed once, here)
 * and its duration when known (read from a WAV header, or given with {@link #withDurationMs}).
 *
 * <p>Immutable and thread-safe. A file note streams the file on every attempt and must not change
 * while it is being transcribed: the gateway refuses audio whose hash differs from the header.
 */
public final class VoiceNote {

  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private final @Nullable Path file;
  private final byte @Nullable [] bytes;
  private final String fileName;
  private final MediaType mediaType;
  private final long size;
  private final String sha256;
  private final long durationMs;

  private VoiceNote(
      @Nullable Path file,
      byte @Nullable [] bytes,
      String fileName,
      long size,
      String sha256,
      long durationMs) {
    this.file = file;
    this.bytes = bytes;
    this.fileName = fileName;
    this.mediaType = mediaTypeFor(fileName);
    this.size = size;
    this.sha256 = sha256;
    this.durationMs = durationMs;
  }

  /**
   * A note backed by {@code file}, which is read once now (for the hash and WAV header) and again
   * for every attempt.
   *
   * @throws IOException if the file cannot be read
   * @throws IllegalArgumentException if the file is empty
   */
  public static VoiceNote ofFile(Path file) throws IOException {
    MessageDigest sha256 = newSha256();
    byte[] head = new byte[WavHeader.PREFIX_BYTES];
    int headLength = 0;
    long size = 0;
    try (InputStream in = Files.newInputStream(file)) {
      byte[] buffer = new byte[64 * 1024];
      for (int n; (n = in.read(buffer)) != -1; ) {
        sha256.update(buffer, 0, n);
        int toHead = Math.min(n, head.length - headLength);
        System.arraycopy(buffer, 0, head, headLength, toHead);
        headLength += toHead;
        size += n;
      }
    }
    requireAudio(size, file.toString());
    Path name = file.getFileName();
    return new VoiceNote(
        file,
        null,
        name == null ? "audio" : name.toString(),
        size,
        hex(sha256.digest()),
        WavHeader.durationMs(head, headLength, size));
  }

  /**
   * A note held in memory. {@code fileName} (such as {@code note.wav}) is sent as the part's file
   * name and chooses its content type.
   *
   * @throws IllegalArgumentException if {@code audio} is empty or {@code fileName} blank
   */
  public static VoiceNote ofBytes(byte[] audio, String fileName) {
    Objects.requireNonNull(audio, "audio");
    Objects.requireNonNull(fileName, "fileName");
    if (fileName.isBlank()) {
      throw new IllegalArgumentException("fileName must not be blank: '" + fileName + "'");
    }
    requireAudio(audio.length, fileName);
    byte[] copy = Arrays.copyOf(audio, audio.length);
    MessageDigest sha256 = newSha256();
    return new VoiceNote(
        null,
        copy,
        fileName,
        copy.length,
        hex(sha256.digest(copy)),
        WavHeader.durationMs(copy, Math.min(copy.length, WavHeader.PREFIX_BYTES), copy.length));
  }

  /**
   * This note with its duration given by the caller (for formats whose header the SDK does not
   * read). The gateway uses it to size its own timeout; it charges by its own measurement.
   */
  public VoiceNote withDurationMs(long durationMs) {
    if (durationMs < 0) {
      throw new IllegalArgumentException("durationMs must be >= 0: " + durationMs);
    }
    return new VoiceNote(file, bytes, fileName, size, sha256, durationMs);
  }

  /** The lower-case hex SHA-256 of the audio, sent as {@code X-Bolo-Audio-Sha256}. */
  public String sha256() {
    return sha256;
  }

  /** The duration, when a WAV header or the caller told it. */
  public OptionalLong durationMs() {
    return durationMs < 0 ? OptionalLong.empty() : OptionalLong.of(durationMs);
  }

  /** The audio's size in bytes. */
  public long size() {
    return size;
  }

  /** The file name sent with the audio part. */
  public String fileName() {
    return fileName;
  }

  /** A fresh body for one attempt. */
  RequestBody body() {
    if (file != null) {
      return RequestBody.create(file.toFile(), mediaType);
    }
    return RequestBody.create(Objects.requireNonNull(bytes), mediaType);
  }

  @Override
  public String toString() {
    return "VoiceNote[" + fileName + ", " + size + " bytes, sha256=" + sha256 + "]";
  }

  private static void requireAudio(long size, String what) {
    // The gateway would answer 400 empty_audio; say so before spending an upload on it.
    if (size == 0) {
      throw new IllegalArgumentException("audio must not be empty: " + what);
    }
  }

  private static MediaType mediaTypeFor(String fileName) {
    String lower = fileName.toLowerCase(Locale.ROOT);
    int dot = lower.lastIndexOf('.');
    String extension = dot < 0 ? "" : lower.substring(dot + 1);
    return MediaType.get(
        switch (extension) {
          case "wav" -> "audio/wav";
          case "mp3" -> "audio/mpeg";
          case "m4a", "mp4" -> "audio/mp4";
          case "ogg", "oga", "opus" -> "audio/ogg";
          case "webm" -> "audio/webm";
          case "flac" -> "audio/flac";
          default -> "application/octet-stream";
        });
  }

  private static MessageDigest newSha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform must provide SHA-256", e);
    }
  }

  private static String hex(byte[] digest) {
    char[] out = new char[digest.length * 2];
    for (int i = 0; i < digest.length; i++) {
      out[2 * i] = HEX[(digest[i] >> 4) & 0xF];
      out[2 * i + 1] = HEX[digest[i] & 0xF];
    }
    return new String(out);
  }
}
