package dev.bolo.server.upload;

import dev.bolo.audio.AudioContainer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An uploaded note held in memory when small and in a temp file when large. Reference counted: the
 * request holds one reference and hands another to detached work with {@link #retain()}; the temp
 * file is deleted when the last holder calls {@link #close()}, on every path.
 */
public final class SpooledAudio implements AudioContent, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SpooledAudio.class);

  private final byte @Nullable [] bytes;
  private final @Nullable Path file;
  private final long size;
  private final String sha256;
  private final AudioContainer container;
  private final OptionalLong measuredDurationMs;
  private final AtomicInteger references = new AtomicInteger(1);
  private final Runnable onDeleted;

  private SpooledAudio(
      byte @Nullable [] bytes,
      @Nullable Path file,
      long size,
      String sha256,
      AudioContainer container,
      OptionalLong measuredDurationMs,
      Runnable onDeleted) {
    this.onDeleted = onDeleted;
    this.bytes = bytes;
    this.file = file;
    this.size = size;
    this.sha256 = sha256;
    this.container = container;
    this.measuredDurationMs = measuredDurationMs;
  }

  /** The note in the first {@code length} bytes of {@code bytes}, which it now owns. */
  static SpooledAudio inMemory(
      byte[] bytes, int length, String sha256, AudioContainer container, OptionalLong durationMs) {
    return new SpooledAudio(bytes, null, length, sha256, container, durationMs, () -> {});
  }

  /**
   * @param onDeleted runs once the spool file is deleted, to give its bytes back to the spool cap
   */
  static SpooledAudio inFile(
      Path file,
      long size,
      String sha256,
      AudioContainer container,
      OptionalLong durationMs,
      Runnable onDeleted) {
    return new SpooledAudio(null, file, size, sha256, container, durationMs, onDeleted);
  }

  @Override
  public long size() {
    return size;
  }

  @Override
  public InputStream open() throws IOException {
    if (references.get() <= 0) {
      throw new IllegalStateException("audio already released");
    }
    if (bytes != null) {
      return new ByteArrayInputStream(bytes, 0, (int) size);
    }
    return Files.newInputStream(Objects.requireNonNull(file));
  }

  @Override
  public SeekableNote openSeekable() throws IOException {
    if (references.get() <= 0) {
      throw new IllegalStateException("audio already released");
    }
    if (bytes != null) {
      return SeekableNote.of(bytes, (int) size);
    }
    return SeekableNote.open(Objects.requireNonNull(file));
  }

  @Override
  public AudioContainer container() {
    return container;
  }

  @Override
  public String sha256() {
    return sha256;
  }

  /**
   * The length measured from the container's own headers by {@link dev.bolo.audio.AudioDurations},
   * for every container; empty only when that note's length cannot be read from it (a compressed
   * WAV, a cut-off header), never because of a client claim.
   */
  public OptionalLong measuredDurationMs() {
    return measuredDurationMs;
  }

  /** True when the note was spooled to disk rather than kept in memory. */
  public boolean isSpooled() {
    return file != null;
  }

  /** Takes one more reference; the caller must {@link #close()} it. */
  public SpooledAudio retain() {
    if (references.getAndIncrement() <= 0) {
      throw new IllegalStateException("audio already released");
    }
    return this;
  }

  /** Drops one reference; the last one deletes the spool file. */
  @Override
  public void close() {
    if (references.decrementAndGet() == 0 && file != null) {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        log.warn("could not delete spool file {}", file, new UncheckedIOException(e));
      } finally {
        onDeleted.run();
      }
    }
  }
}
