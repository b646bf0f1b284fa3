package dev.bolo.server.upload;

import dev.bolo.audio.AudioContainer;
import dev.bolo.audio.AudioDurations;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The spool file of one resumable upload: the bytes stored so far, appended to as they arrive and
 * hashed (SHA-256) incrementally across appends. The digest lives in memory; after a restart (or
 * when this instance forgot it) the first append re-hashes the stored prefix: a 25 MB prefix took
 * 0.14 to 0.3 s on a loaded two-core machine, once per upload and restart. Storing the digest's
 * state instead would need an own SHA-256: the JDK's {@link MessageDigest} does not expose it.
 *
 * <p>Not thread-safe: one append at a time. Callers hold the upload's lock (the resumable uploads'
 * {@code Locker}, keyed by the upload's id) while they append, cut back or finish.
 */
public final class PartialNote {

  private static final int BUFFER_BYTES = 64 * 1024;

  private final Path file;
  private long offset;
  private @Nullable MessageDigest digest;
  private long hashed;

  private PartialNote(Path file, long offset) {
    this.file = file;
    this.offset = offset;
  }

  /**
   * The file of an upload with {@code offset} bytes recorded, created when new. Nothing in the file
   * is changed here: bytes past the recorded offset (an append the gateway stopped before recording
   * it) are cut off by the next append, under the lock and after it has read the record again, so
   * that a caller holding a stale record never cuts a file another append, or the transcription, is
   * using.
   *
   * @throws SpoolCorrupted when the file holds fewer bytes than recorded (lost from the disk)
   */
  public static PartialNote open(Path file, long offset) throws IOException {
    if (offset > 0 && !Files.exists(file)) {
      // Never leave an empty file behind for an upload whose bytes are gone.
      throw new SpoolCorrupted("the spool file " + file + " is missing, " + offset + " recorded");
    }
    Files.createDirectories(file.getParent());
    try (FileChannel channel =
        FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      long size = channel.size();
      if (size < offset) {
        throw new SpoolCorrupted(
            "the spool file " + file + " holds " + size + " bytes, " + offset + " recorded");
      }
      return new PartialNote(file, size);
    }
  }

  /**
   * How many of the {@code recorded} bytes the spool file {@code file} still holds: fewer when the
   * disk lost some under the gateway (a spool directory wiped or restored from an older copy), 0
   * when the file is gone.
   */
  public static long kept(Path file, long recorded) throws IOException {
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(file, BasicFileAttributes.class);
    } catch (NoSuchFileException e) {
      return 0;
    }
    if (!attributes.isRegularFile()) {
      throw new IOException("the spool file " + file + " is not a regular file");
    }
    return Math.min(recorded, attributes.size());
  }

  /** The spool file holds fewer bytes than the upload's record: they cannot be appended to. */
  public static final class SpoolCorrupted extends IOException {
    private static final long serialVersionUID = 1L;

    SpoolCorrupted(String message) {
      super(message);
    }
  }

  /** Bytes stored. */
  public long offset() {
    return offset;
  }

  /** How an append ended. */
  record Appended(long bytes, boolean overran, @Nullable IOException interruption) {}

  /**
   * Appends what {@code body} sends, at most {@code room} bytes; bytes that arrived before the body
   * failed are kept. The file is forced to disk before this returns, so the offset recorded next
   * never claims bytes a crash could lose.
   */
  Appended append(InputStream body, long room) throws IOException {
    catchUpDigest();
    MessageDigest hashing = java.util.Objects.requireNonNull(digest);
    long taken = 0;
    boolean overran = false;
    @Nullable IOException interruption = null;
    if (offset == 0) {
      // Nothing stored yet: a file removed meanwhile (with its directory) loses nothing.
      Files.createDirectories(file.getParent());
    }
    try (FileChannel channel =
        offset == 0
            ? FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)
            : FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.position(offset);
      byte[] buffer = new byte[BUFFER_BYTES];
      while (taken < room) {
        int n;
        try {
          n = body.read(buffer, 0, (int) Math.min(buffer.length, room - taken));
        } catch (IOException e) {
          // The client's link, not the gateway's disk: what arrived so far is kept.
          interruption = e;
          break;
        }
        if (n == -1) {
          break;
        }
        ByteBuffer bytes = ByteBuffer.wrap(buffer, 0, n);
        while (bytes.hasRemaining()) {
          channel.write(bytes);
        }
        hashing.update(buffer, 0, n);
        taken += n;
        offset += n;
        hashed = offset;
      }
      if (interruption == null && taken == room) {
        try {
          overran = body.read() != -1;
        } catch (IOException e) {
          // The body broke after all the room was taken: nothing more to keep either way.
        }
      }
      channel.force(false);
    }
    return new Appended(taken, overran, interruption);
  }

  /** Cuts the file back to {@code to} bytes: an append that must not count. */
  public void cutBack(long to) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.truncate(to);
    }
    offset = to;
    digest = null;
  }

  private void catchUpDigest() throws IOException {
    if (digest != null && hashed == offset) {
      return;
    }
    MessageDigest fresh = Hashing.sha256();
    try (InputStream in = Files.newInputStream(file)) {
      byte[] buffer = new byte[BUFFER_BYTES];
      long left = offset;
      while (left > 0) {
        int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
        if (n == -1) {
          throw new SpoolCorrupted("the spool file " + file + " ended before " + offset + " bytes");
        }
        fresh.update(buffer, 0, n);
        left -= n;
      }
    }
    digest = fresh;
    hashed = offset;
  }

  /** The SHA-256 of the bytes stored, as lower-case hex. */
  public String sha256() throws IOException {
    catchUpDigest();
    try {
      MessageDigest copy = (MessageDigest) java.util.Objects.requireNonNull(digest).clone();
      return HexFormat.of().formatHex(copy.digest());
    } catch (CloneNotSupportedException e) {
      throw new IllegalStateException("the JDK's SHA-256 can be cloned", e);
    }
  }

  /** What the stored bytes turned out to be once the last one arrived. */
  public sealed interface Finished {
    /** A note, measured where its container allows; the caller owns it and its file. */
    record Note(SpooledAudio audio) implements Finished {}

    /** Not a note Bolo accepts: empty, not audio, or headers that contradict the bytes. */
    record Unusable(UploadResult.Invalid why) implements Finished {}
  }

  /**
   * Ends the upload: sniffs and measures the stored bytes and hands them over as a note whose file
   * is deleted when its last holder closes it, which then runs {@code onDeleted}.
   */
  public Finished finish(Runnable onDeleted) throws IOException {
    if (offset == 0) {
      return new Finished.Unusable(
          new UploadResult.Invalid(UploadResult.Reason.EMPTY_AUDIO, "the upload is empty"));
    }
    byte[] head = new byte[AudioContainer.SNIFF_BYTES];
    int headLength;
    try (InputStream in = Files.newInputStream(file)) {
      headLength = in.readNBytes(head, 0, head.length);
    }
    Optional<AudioContainer> found = AudioContainer.sniff(head, headLength);
    if (found.isEmpty()) {
      return new Finished.Unusable(
          new UploadResult.Invalid(
              UploadResult.Reason.UNSUPPORTED_AUDIO,
              "not a recognised audio container (WAV, MP3, M4A/MP4, OGG/Opus, WebM, FLAC, AAC);"
                  + " first bytes "
                  + HexFormat.of().formatHex(head, 0, Math.min(headLength, 8))));
    }
    String sha256 = sha256();
    NoteMeasurement judged =
        NoteMeasurement.of(found.get(), AudioDurations.measure(found.get(), file));
    UploadResult.@Nullable Invalid refusal = judged.refusal();
    if (refusal != null) {
      return new Finished.Unusable(refusal);
    }
    return new Finished.Note(
        SpooledAudio.inFile(file, offset, sha256, found.get(), judged.duration(), onDeleted));
  }

  /** Deletes the spool file. */
  public void delete() throws IOException {
    Files.deleteIfExists(file);
    digest = null;
  }
}
