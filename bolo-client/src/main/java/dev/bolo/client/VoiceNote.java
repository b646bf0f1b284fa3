package dev.bolo.client;

import dev.bolo.audio.SeekableSource;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalLong;
import okhttp3.MediaType;
import org.jspecify.annotations.Nullable;

/**
 * The audio of one voice note, from a file, from bytes or from a stream the app can open again
 * (such as an Android {@code content://} URI), with its SHA-256 and size (taken once, here) and its
 * duration, read from the container with the gateway's own rules (WAV, MP3, M4A, Ogg, WebM, FLAC,
 * AAC) or given by the app with {@link #withDurationMs}.
 *
 * <p>Before every attempt a file or stream note is read and hashed again: audio that changed since
 * the note was made ends the note as {@link Outcome.AudioChanged} without being sent, and audio
 * that cannot be read ends it as {@link Outcome.Unreadable}. A bytes note keeps its own copy.
 *
 * <p>Immutable and thread-safe.
 */
public final class VoiceNote {

  /**
   * Opens the note's audio afresh, positioned at its first byte; called when the note is made (to
   * hash and measure it) and twice per attempt (check, then upload). The SDK closes each stream it
   * opens. Null, as Android's {@code ContentResolver.openInputStream} may answer, is unreadable.
   */
  @FunctionalInterface
  public interface AudioOpener {
    @Nullable InputStream open() throws IOException;
  }

  private static final char[] HEX = "0123456789abcdef".toCharArray();
  private static final int BUFFER_BYTES = 64 * 1024;

  private final AudioOpener opener;
  private final boolean canChange;
  private final String fileName;
  private final MediaType mediaType;
  private final long size;
  private final String sha256;
  private final long durationMs;

  private VoiceNote(
      AudioOpener opener,
      boolean canChange,
      String fileName,
      long size,
      String sha256,
      long durationMs) {
    this.opener = opener;
    this.canChange = canChange;
    this.fileName = fileName;
    this.mediaType = mediaTypeFor(fileName);
    this.size = size;
    this.sha256 = sha256;
    this.durationMs = durationMs;
  }

  /**
   * A note backed by {@code file}, which is read once now (for the hash, size and duration) and
   * again for every attempt.
   *
   * @throws IOException if the file cannot be read
   * @throws IllegalArgumentException if the file is empty
   */
  public static VoiceNote ofFile(Path file) throws IOException {
    Objects.requireNonNull(file, "file");
    Path name = file.getFileName();
    return read(
        () -> Files.newInputStream(file),
        true,
        name == null ? "audio" : name.toString(),
        file.toString(),
        size -> {
          try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            return NoteLength.millis(SeekableSource.of(channel));
          }
        });
  }

  /**
   * A note held in memory; the bytes are copied. {@code fileName} (such as {@code note.wav}) is
   * sent as the part's file name and chooses its content type.
   *
   * @throws IllegalArgumentException if {@code audio} is empty or {@code fileName} blank
   */
  public static VoiceNote ofBytes(byte[] audio, String fileName) {
    Objects.requireNonNull(audio, "audio");
    requireFileName(fileName);
    byte[] copy = Arrays.copyOf(audio, audio.length);
    try {
      return read(
          () -> new ByteArrayInputStream(copy),
          false,
          fileName,
          fileName,
          size -> NoteLength.millis(SeekableSource.of(copy)));
    } catch (IOException impossible) {
      throw new IllegalStateException("reading an array cannot fail", impossible);
    }
  }

  /**
   * A note whose audio the app can open again and again, such as an Android {@code content://} URI:
   * {@code VoiceNote.ofStream(() -> resolver.openInputStream(uri), "note.m4a")}. It is read once
   * now (for the hash, size and duration).
   *
   * @throws IOException if the stream cannot be opened or read
   * @throws IllegalArgumentException if the audio is empty or {@code fileName} blank
   */
  public static VoiceNote ofStream(AudioOpener opener, String fileName) throws IOException {
    Objects.requireNonNull(opener, "opener");
    requireFileName(fileName);
    return read(
        opener,
        true,
        fileName,
        fileName,
        size -> {
          try (NoteLength.Reopening source = new NoteLength.Reopening(opener, size)) {
            return NoteLength.millis(source);
          }
        });
  }

  /** Measures the note's duration once its size is known: -1 when unknown. */
  @FunctionalInterface
  private interface Measure {
    long millis(long size) throws IOException;
  }

  private static VoiceNote read(
      AudioOpener opener, boolean canChange, String fileName, String what, Measure measure)
      throws IOException {
    MessageDigest sha256 = newSha256();
    long size = 0;
    try (InputStream in = open(opener)) {
      byte[] buffer = new byte[BUFFER_BYTES];
      for (int n; (n = in.read(buffer)) != -1; ) {
        sha256.update(buffer, 0, n);
        size += n;
      }
    }
    // The gateway would answer 400 empty_audio; say so before spending an upload on it.
    if (size == 0) {
      throw new IllegalArgumentException("audio must not be empty: " + what);
    }
    return new VoiceNote(
        opener, canChange, fileName, size, hex(sha256.digest()), measure.millis(size));
  }

  /**
   * This note with its duration given by the caller (for a container the SDK cannot measure). The
   * gateway uses it to size its own timeout; it charges by its own measurement.
   */
  public VoiceNote withDurationMs(long durationMs) {
    if (durationMs < 0) {
      throw new IllegalArgumentException("durationMs must be >= 0: " + durationMs);
    }
    return new VoiceNote(opener, canChange, fileName, size, sha256, durationMs);
  }

  /** The lower-case hex SHA-256 of the audio, sent as {@code X-Bolo-Audio-Sha256}. */
  public String sha256() {
    return sha256;
  }

  /** The duration, when the container or the caller told it. */
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

  MediaType mediaType() {
    return mediaType;
  }

  /** Whether the audio can change under the note (a file or stream), so it must be checked. */
  boolean canChange() {
    return canChange;
  }

  /** A fresh stream of the audio for one upload. */
  InputStream open() throws IOException {
    return open(opener);
  }

  /**
   * Reads the audio again and compares it with the note's hash.
   *
   * @return null when it is unchanged, else the hash it has now
   * @throws IOException if it cannot be read
   */
  @Nullable String changedHash() throws IOException {
    MessageDigest digest = newSha256();
    try (InputStream in = open()) {
      byte[] buffer = new byte[BUFFER_BYTES];
      for (int n; (n = in.read(buffer)) != -1; ) {
        digest.update(buffer, 0, n);
      }
    }
    String now = hex(digest.digest());
    return now.equals(sha256) ? null : now;
  }

  @Override
  public String toString() {
    return "VoiceNote[" + fileName + ", " + size + " bytes, sha256=" + sha256 + "]";
  }

  private static InputStream open(AudioOpener opener) throws IOException {
    InputStream in = opener.open();
    if (in == null) {
      throw new IOException("the audio opener returned no stream");
    }
    return in;
  }

  private static void requireFileName(String fileName) {
    Objects.requireNonNull(fileName, "fileName");
    if (fileName.isBlank()) {
      throw new IllegalArgumentException("fileName must not be blank: '" + fileName + "'");
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
          case "aac" -> "audio/aac";
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

  static String hex(byte[] digest) {
    char[] out = new char[digest.length * 2];
    for (int i = 0; i < digest.length; i++) {
      out[2 * i] = HEX[(digest[i] >> 4) & 0xF];
      out[2 * i + 1] = HEX[digest[i] & 0xF];
    }
    return new String(out);
  }
}
