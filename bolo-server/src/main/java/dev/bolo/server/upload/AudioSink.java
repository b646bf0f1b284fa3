package dev.bolo.server.upload;

import dev.bolo.audio.AudioContainer;
import dev.bolo.audio.AudioDurations;
import dev.bolo.audio.Measurement;
import dev.bolo.audio.SeekableSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the audio part's bytes go as they arrive, in one pass: hashed (SHA-256), the head kept to
 * recognise the container, held in memory up to a threshold and spooled to a file beyond it,
 * refused as soon as it passes the size limit. {@link #finish} measures the note and hands it over;
 * {@link #close} before that discards whatever was written. One upload at a time.
 */
final class AudioSink implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(AudioSink.class);

  private static final int FIRST_MEMORY_BYTES = 64 * 1024;

  private final long maxAudioBytes;
  private final int inMemoryBytes;
  private final Path spoolDir;
  private final SpoolBudget spool;
  private final SpoolBuffers buffers;
  private final MessageDigest digest = Hashing.sha256();
  private final byte[] head = new byte[AudioContainer.SNIFF_BYTES];
  private int headLength;
  private byte[] memory;
  private int memoryLength;
  private @Nullable Path file;
  private @Nullable FileChannel out;

  /** Where spooled bytes gather before they are written (see {@link SpoolBuffers}). */
  private @Nullable ByteBuffer staging;

  private long total;
  private @Nullable AudioContainer container;
  private long reserved;
  private boolean handedOver;

  /**
   * Where the audio parts of every upload go: at most {@code maxAudioBytes}, in memory up to {@code
   * inMemoryBytes}, beyond that to a file in {@code spoolDir} within the {@code spool} budget,
   * gathered in {@code buffers} on the way.
   */
  record Config(
      long maxAudioBytes,
      int inMemoryBytes,
      Path spoolDir,
      SpoolBudget spool,
      SpoolBuffers buffers) {
    /** A sink for the audio part of a body of {@code bodyLength} bytes (-1 when unknown). */
    AudioSink open(long bodyLength) {
      return new AudioSink(this, bodyLength);
    }
  }

  /**
   * @param bodyLength the declared length of the whole request body, -1 when unknown: the audio
   *     part is no longer, so a note kept in memory gets one buffer of about its size, never grown
   *     (the body's declared length is already counted against the upload budget when it is read)
   */
  private AudioSink(Config config, long bodyLength) {
    this.maxAudioBytes = config.maxAudioBytes();
    this.inMemoryBytes = config.inMemoryBytes();
    this.spoolDir = config.spoolDir();
    this.spool = config.spool();
    this.buffers = config.buffers();
    this.memory =
        new byte
            [bodyLength < 0
                ? Math.min(inMemoryBytes, FIRST_MEMORY_BYTES)
                : (int) Math.min(inMemoryBytes, bodyLength)];
  }

  /**
   * Takes the next bytes of the audio part (all of {@code bytes}, which is left consumed).
   *
   * @return why the upload is refused (too large, not audio), or null to go on
   */
  UploadResult.@Nullable Invalid write(ByteBuffer bytes) throws SpoolFailure, SpoolFull {
    int n = bytes.remaining();
    if (n == 0) {
      return null;
    }
    total += n;
    if (total > maxAudioBytes) {
      // The message names both limits: this one, and the largest resumable upload.
      return new UploadResult.Invalid(
          UploadResult.Reason.TOO_LARGE,
          NoteSizes.tooLargeForPost(maxAudioBytes, spool.deviceShareBytes()));
    }
    if (out == null && memoryLength + n <= inMemoryBytes) {
      if (memoryLength + n > memory.length) {
        memory =
            Arrays.copyOf(
                memory, Math.min(inMemoryBytes, Math.max(memory.length * 2, memoryLength + n)));
      }
      // Hashed from the copy just made: the network's bytes sit in a direct buffer, which the
      // digest would first copy into an array of its own, 4 KiB at a time.
      int from = memoryLength;
      bytes.get(memory, from, n);
      memoryLength += n;
      digest.update(memory, from, n);
      return headLength < head.length ? keepHead(ByteBuffer.wrap(memory, from, n)) : null;
    }
    digest.update(bytes.duplicate());
    if (headLength < head.length) {
      UploadResult.@Nullable Invalid unsupported = keepHead(bytes.duplicate());
      if (unsupported != null) {
        return unsupported;
      }
    }
    long needed = (out == null ? memoryLength : 0) + n;
    if (!spool.tryHold(needed)) {
      throw new SpoolFull();
    }
    reserved += needed;
    try {
      FileChannel channel = out;
      if (channel == null) {
        Files.createDirectories(spoolDir);
        Path created = Files.createTempFile(spoolDir, "upload-", ".audio");
        file = created;
        channel = FileChannel.open(created, StandardOpenOption.WRITE);
        out = channel;
        spool(channel, ByteBuffer.wrap(memory, 0, memoryLength));
        memory = new byte[0];
      }
      spool(channel, bytes);
    } catch (IOException e) {
      throw new SpoolFailure("writing " + (file == null ? spoolDir : file), e);
    }
    return null;
  }

  /**
   * Keeps the first bytes of the part from {@code bytes} (consumed) and sniffs them once complete.
   *
   * @return why the upload is refused (not audio), or null to go on
   */
  private UploadResult.@Nullable Invalid keepHead(ByteBuffer bytes) {
    int copy = Math.min(bytes.remaining(), head.length - headLength);
    bytes.get(head, headLength, copy);
    headLength += copy;
    return headLength == head.length ? sniff() : null;
  }

  /** Gathers {@code bytes} (all of them, left consumed), writing whenever the buffer is full. */
  private void spool(FileChannel channel, ByteBuffer bytes) throws IOException {
    if (bytes.isDirect()) {
      flush(channel);
      writeFully(channel, bytes);
      return;
    }
    ByteBuffer gathered = staging;
    if (gathered == null) {
      gathered = buffers.take();
      staging = gathered;
    }
    while (bytes.hasRemaining()) {
      int n = Math.min(gathered.remaining(), bytes.remaining());
      gathered.put(gathered.position(), bytes, bytes.position(), n);
      gathered.position(gathered.position() + n);
      bytes.position(bytes.position() + n);
      if (!gathered.hasRemaining()) {
        flush(channel);
      }
    }
  }

  private void flush(FileChannel channel) throws IOException {
    ByteBuffer gathered = staging;
    if (gathered != null && gathered.position() > 0) {
      writeFully(channel, gathered.flip());
      gathered.clear();
    }
  }

  private void releaseStaging() {
    ByteBuffer gathered = staging;
    if (gathered != null) {
      staging = null;
      buffers.give(gathered);
    }
  }

  private static void writeFully(FileChannel channel, ByteBuffer bytes) throws IOException {
    while (bytes.hasRemaining()) {
      channel.write(bytes);
    }
  }

  private UploadResult.@Nullable Invalid sniff() {
    Optional<AudioContainer> found = AudioContainer.sniff(head, headLength);
    if (found.isEmpty()) {
      String magic = HexFormat.of().formatHex(head, 0, Math.min(headLength, 8));
      return new UploadResult.Invalid(
          UploadResult.Reason.UNSUPPORTED_AUDIO,
          "not a recognised audio container (WAV, MP3, M4A/MP4, OGG/Opus, WebM, FLAC, AAC);"
              + " first bytes "
              + magic);
    }
    container = found.get();
    return null;
  }

  /** What the audio part turned out to be. */
  sealed interface Finished {
    /** A note, measured where its container allows, now owned by the caller. */
    record Note(SpooledAudio audio) implements Finished {}

    /** Why the part is refused: empty, not audio, or headers that contradict the bytes. */
    record UnusableAudio(UploadResult.Invalid why) implements Finished {}
  }

  /** Ends the part: the measured note, or why it is refused. */
  Finished finish() throws SpoolFailure {
    if (total == 0) {
      return new Finished.UnusableAudio(
          new UploadResult.Invalid(UploadResult.Reason.EMPTY_AUDIO, "the audio part is empty"));
    }
    if (container == null) {
      UploadResult.@Nullable Invalid unsupported = sniff();
      if (unsupported != null) {
        return new Finished.UnusableAudio(unsupported);
      }
    }
    AudioContainer found = Objects.requireNonNull(container, "sniffed");
    String sha256 = HexFormat.of().formatHex(digest.digest());
    Path spooled = file;
    FileChannel channel = out;
    if (channel != null) {
      try {
        flush(channel);
        channel.close();
      } catch (IOException e) {
        throw new SpoolFailure("writing " + spooled, e);
      } finally {
        releaseStaging();
      }
      out = null;
    }
    Measurement measurement =
        spooled != null
            ? measure(found, spooled)
            : measure(found, SeekableSource.of(memory, memoryLength));
    NoteMeasurement judged = NoteMeasurement.of(found, measurement);
    UploadResult.@Nullable Invalid refusal = judged.refusal();
    if (refusal != null) {
      return new Finished.UnusableAudio(refusal);
    }
    OptionalLong duration = judged.duration();
    long held = reserved;
    SpooledAudio audio =
        spooled != null
            ? SpooledAudio.inFile(
                spooled, total, sha256, found, duration, () -> spool.release(held))
            : SpooledAudio.inMemory(memory, memoryLength, sha256, found, duration);
    handedOver = true;
    return new Finished.Note(audio);
  }

  /** Discards what was written unless {@link #finish} handed the note over. */
  @Override
  public void close() {
    if (handedOver) {
      return;
    }
    handedOver = true;
    spool.release(reserved);
    releaseStaging();
    try {
      FileChannel channel = out;
      if (channel != null) {
        channel.close();
      }
      Path spooled = file;
      if (spooled != null) {
        Files.deleteIfExists(spooled);
      }
    } catch (IOException e) {
      log.warn("could not delete spool file {}: {}", file, e.toString());
    }
  }

  /**
   * Measures the note's length from its container. Reading the spool file back is the server's
   * business: a failure there is a server fault, never the client's malformed upload.
   */
  private static Measurement measure(AudioContainer container, Path file) throws SpoolFailure {
    try {
      return AudioDurations.measure(container, file);
    } catch (IOException e) {
      throw new SpoolFailure("reading back " + file, e);
    }
  }

  private static Measurement measure(AudioContainer container, SeekableSource bytes) {
    try {
      return AudioDurations.measure(container, bytes);
    } catch (IOException e) {
      throw new UncheckedIOException("an in-memory source cannot fail", e);
    }
  }

  /** The spool (the server's disk) failed; never the client's fault. */
  static final class SpoolFailure extends IOException {
    private static final long serialVersionUID = 1L;

    SpoolFailure(String message, IOException cause) {
      super(message, cause);
    }
  }

  /** Spooling this upload would pass {@code BOLO_SPOOL_MAX_BYTES}. */
  static final class SpoolFull extends Exception {
    private static final long serialVersionUID = 1L;

    SpoolFull() {
      super(null, null, false, false);
    }
  }
}
