package dev.bolo.server.audio;

import dev.bolo.audio.AudioContainer;
import dev.bolo.audio.AudioDurations;
import dev.bolo.audio.Measurement;
import dev.bolo.audio.SeekableSource;
import dev.bolo.server.Readiness;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.commons.fileupload2.core.DiskFileItem;
import org.apache.commons.fileupload2.core.DiskFileItemFactory;
import org.apache.commons.fileupload2.core.FileItemInput;
import org.apache.commons.fileupload2.core.FileItemInputIterator;
import org.apache.commons.fileupload2.core.RequestContext;
import org.apache.commons.fileupload2.jakarta.servlet6.JakartaServletFileUpload;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a multipart upload as a stream: the audio part is hashed (SHA-256) while its bytes arrive,
 * kept in memory up to a threshold and spooled to a temp file beyond it, and refused as soon as it
 * passes the size limit. There is no second pass over the audio and a large note never sits whole
 * in the heap. Once it has arrived, its length is measured from its container's headers (a few
 * small reads, see {@link AudioDurations}); headers that contradict themselves or the bytes refuse
 * the upload as {@link UploadResult.Reason#INVALID_AUDIO}.
 *
 * <p>Thread safe: one reader serves every request.
 */
public final class UploadReader {

  private static final Logger log = LoggerFactory.getLogger(UploadReader.class);

  /** Field names the audio may arrive in: Bolo's own and OpenAI's. */
  private static final List<String> AUDIO_FIELDS = List.of("audio", "file");

  /** Text parts are short settings; a prompt of 16 KiB is already far beyond any provider's. */
  private static final int MAX_FIELD_BYTES = 16 * 1024;

  private static final int MAX_FIELDS = 64;

  /** Enough of the head to recognise the container. */
  private static final int HEAD_BYTES = AudioContainer.SNIFF_BYTES;

  private static final int BUFFER_BYTES = 64 * 1024;

  /** How long an upload waits for one of the {@code maxConcurrentUploads} slots. */
  private static final long SLOT_WAIT_MS = 1000;

  private final long maxAudioBytes;
  private final int inMemoryBytes;
  private final Path spoolDir;
  private final Semaphore uploadSlots;
  private final long spoolMaxBytes;
  private final AtomicLong spoolInUse = new AtomicLong();
  private final long minBytesPerSecond;
  private final Duration rateWindow;
  private final LongSupplier nanoTime;

  /**
   * @param maxAudioBytes the largest accepted note ({@code BOLO_MAX_UPLOAD_BYTES})
   * @param inMemoryBytes notes up to this size stay in memory; larger ones spool to disk
   * @param spoolDir where temp files go; created if missing
   */
  public UploadReader(long maxAudioBytes, int inMemoryBytes, Path spoolDir) {
    this(
        maxAudioBytes,
        inMemoryBytes,
        spoolDir,
        new Bounds(Integer.MAX_VALUE, Long.MAX_VALUE, 1, Duration.ofDays(1)),
        System::nanoTime);
  }

  /**
   * What one gateway lets its uploads hold and how slow they may be.
   *
   * @param maxConcurrentUploads bodies read at once; a further one waits a second, then is refused
   * @param spoolMaxBytes spool bytes in use at once
   * @param minBytesPerSecond the slowest accepted body, averaged over {@code rateWindow}
   * @param rateWindow the averaging window
   */
  public record Bounds(
      int maxConcurrentUploads, long spoolMaxBytes, long minBytesPerSecond, Duration rateWindow) {}

  /**
   * @param maxAudioBytes the largest accepted note ({@code BOLO_MAX_UPLOAD_BYTES})
   * @param inMemoryBytes notes up to this size stay in memory; larger ones spool to disk
   * @param spoolDir where temp files go; created if missing
   * @param bounds concurrency, spool and rate limits
   * @param nanoTime monotonic nanoseconds for the body rate
   */
  public UploadReader(
      long maxAudioBytes, int inMemoryBytes, Path spoolDir, Bounds bounds, LongSupplier nanoTime) {
    this.uploadSlots = new Semaphore(bounds.maxConcurrentUploads());
    this.spoolMaxBytes = bounds.spoolMaxBytes();
    this.minBytesPerSecond = bounds.minBytesPerSecond();
    this.rateWindow = bounds.rateWindow();
    this.nanoTime = nanoTime;
    if (maxAudioBytes <= 0 || inMemoryBytes < 0) {
      throw new IllegalArgumentException(
          "limits must be positive: maxAudioBytes="
              + maxAudioBytes
              + ", inMemoryBytes="
              + inMemoryBytes);
    }
    this.maxAudioBytes = maxAudioBytes;
    this.inMemoryBytes = inMemoryBytes;
    this.spoolDir = spoolDir;
  }

  /** The largest accepted note in bytes. */
  public long maxAudioBytes() {
    return maxAudioBytes;
  }

  /** Spool bytes held by uploads now, for metrics and tests. */
  public long spoolBytesInUse() {
    return spoolInUse.get();
  }

  /** Whether a spool file can be written now: DOWN while the spool folder is unusable. */
  public Readiness readiness() {
    try {
      Files.createDirectories(spoolDir);
      Path probe = Files.createTempFile(spoolDir, "probe-", ".tmp");
      Files.delete(probe);
      return Readiness.ok();
    } catch (IOException | RuntimeException e) {
      log.debug("the spool folder {} cannot be written: {}", spoolDir, e.toString());
      return Readiness.down(
          "the spool cannot be written; notes over " + inMemoryBytes + " bytes are refused");
    }
  }

  /**
   * Reads one upload. On {@link UploadResult.Invalid} for size or container the rest of the body is
   * left unread; the caller decides how much of it to drain.
   */
  public UploadResult read(@Nullable String contentType, long contentLength, InputStream body)
      throws IOException {
    boolean admitted;
    try {
      admitted = uploadSlots.tryAcquire(SLOT_WAIT_MS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      admitted = false;
    }
    if (!admitted) {
      return new UploadResult.Invalid(
          UploadResult.Reason.SERVER_BUSY, "too many uploads at once; resend shortly");
    }
    try {
      return readAdmitted(
          contentType,
          contentLength,
          new MinimumRateInputStream(body, minBytesPerSecond, rateWindow, nanoTime));
    } finally {
      uploadSlots.release();
    }
  }

  private UploadResult readAdmitted(
      @Nullable String contentType, long contentLength, InputStream body) throws IOException {
    if (contentType == null
        || !contentType.toLowerCase(java.util.Locale.ROOT).startsWith("multipart/form-data")) {
      return new UploadResult.Invalid(
          UploadResult.Reason.NOT_MULTIPART,
          "expected multipart/form-data with the audio in part 'audio' or 'file', got "
              + (contentType == null ? "no content type" : contentType));
    }
    JakartaServletFileUpload<DiskFileItem, DiskFileItemFactory> parser =
        new JakartaServletFileUpload<>();
    Map<String, List<String>> fields = new LinkedHashMap<>();
    @Nullable SpooledAudio audio = null;
    try {
      FileItemInputIterator items =
          parser.getItemIterator(context(contentType, contentLength, body));
      int count = 0;
      while (items.hasNext()) {
        FileItemInput item = items.next();
        if (++count > MAX_FIELDS) {
          closeQuietly(audio);
          return new UploadResult.Invalid(
              UploadResult.Reason.BAD_FIELD, "more than " + MAX_FIELDS + " parts");
        }
        String name = item.getFieldName() == null ? "" : item.getFieldName();
        if (AUDIO_FIELDS.contains(name) && audio == null) {
          AudioOrProblem read = readAudio(item);
          if (read.problem() != null) {
            return read.problem();
          }
          audio = read.audio();
          continue;
        }
        if (AUDIO_FIELDS.contains(name)) {
          closeQuietly(audio);
          return new UploadResult.Invalid(
              UploadResult.Reason.BAD_FIELD, "more than one audio part; send one note per request");
        }
        Optional<String> value = readField(item);
        if (value.isEmpty()) {
          closeQuietly(audio);
          return new UploadResult.Invalid(
              UploadResult.Reason.BAD_FIELD,
              "part '" + name + "' exceeds " + MAX_FIELD_BYTES + " bytes");
        }
        fields.computeIfAbsent(name, k -> new ArrayList<>()).add(value.get());
      }
    } catch (SpoolFailure e) {
      closeQuietly(audio);
      // The server's disk, not the phone: a resend may succeed. The path stays in the log.
      log.error("cannot spool an upload: {}", e.getMessage(), e.getCause());
      return new UploadResult.Invalid(
          UploadResult.Reason.SERVER_BUSY,
          "the gateway cannot store uploads right now; resend shortly");
    } catch (IOException e) {
      closeQuietly(audio);
      if (tooSlow(e)) {
        log.info("upload too slow: {}", e.toString());
        return new UploadResult.Invalid(
            UploadResult.Reason.TOO_SLOW,
            "the upload arrived slower than "
                + minBytesPerSecond
                + " bytes per second over "
                + rateWindow.toMillis()
                + " ms, or stopped; resend on a better connection");
      }
      // The client vanished mid-body or sent broken multipart; nothing was transcribed.
      log.info("upload incomplete or malformed: {}", e.toString());
      return new UploadResult.Invalid(
          UploadResult.Reason.MALFORMED,
          "upload incomplete or malformed multipart/form-data; nothing was transcribed");
    } catch (SpoolFull e) {
      closeQuietly(audio);
      log.warn("spool full: {} of {} bytes in use", spoolInUse.get(), spoolMaxBytes);
      return new UploadResult.Invalid(
          UploadResult.Reason.SERVER_BUSY,
          "the gateway is holding too many uploads; resend shortly");
    }
    if (audio == null) {
      return new UploadResult.Invalid(
          UploadResult.Reason.MISSING_AUDIO, "no audio: send the note in part 'audio' or 'file'");
    }
    return new UploadResult.Received(new Upload(audio, fields));
  }

  private record AudioOrProblem(
      @Nullable SpooledAudio audio, UploadResult.@Nullable Invalid problem) {}

  private AudioOrProblem readAudio(FileItemInput item) throws IOException, SpoolFull {
    MessageDigest digest = Hashing.sha256();
    byte[] head = new byte[HEAD_BYTES];
    int headLength = 0;
    byte[] memory = new byte[Math.min(inMemoryBytes, BUFFER_BYTES)];
    int memoryLength = 0;
    @Nullable Path file = null;
    @Nullable OutputStream out = null;
    long total = 0;
    boolean sniffed = false;
    AudioContainer container = AudioContainer.WAV;
    byte[] buffer = new byte[BUFFER_BYTES];
    boolean complete = false;
    long reserved = 0;
    try (InputStream in = item.getInputStream()) {
      int n;
      while ((n = in.read(buffer)) != -1) {
        if (n == 0) {
          continue;
        }
        total += n;
        if (total > maxAudioBytes) {
          return new AudioOrProblem(
              null,
              new UploadResult.Invalid(
                  UploadResult.Reason.TOO_LARGE, "upload exceeds " + maxAudioBytes + " bytes"));
        }
        digest.update(buffer, 0, n);
        if (headLength < head.length) {
          int copy = Math.min(n, head.length - headLength);
          System.arraycopy(buffer, 0, head, headLength, copy);
          headLength += copy;
        }
        if (!sniffed && headLength >= AudioContainer.SNIFF_BYTES) {
          Optional<AudioContainer> found = AudioContainer.sniff(head, headLength);
          if (found.isEmpty()) {
            return new AudioOrProblem(null, unsupported(head, headLength));
          }
          container = found.get();
          sniffed = true;
        }
        if (out == null && memoryLength + n <= inMemoryBytes) {
          if (memoryLength + n > memory.length) {
            memory =
                Arrays.copyOf(
                    memory, Math.min(inMemoryBytes, Math.max(memory.length * 2, memoryLength + n)));
          }
          System.arraycopy(buffer, 0, memory, memoryLength, n);
          memoryLength += n;
          continue;
        }
        long needed = (out == null ? memoryLength : 0) + n;
        if (spoolInUse.addAndGet(needed) > spoolMaxBytes) {
          spoolInUse.addAndGet(-needed);
          throw new SpoolFull();
        }
        reserved += needed;
        try {
          if (out == null) {
            Files.createDirectories(spoolDir);
            file = Files.createTempFile(spoolDir, "upload-", ".audio");
            out = Files.newOutputStream(file);
            out.write(memory, 0, memoryLength);
            memory = new byte[0];
          }
          out.write(buffer, 0, n);
        } catch (IOException e) {
          throw new SpoolFailure("writing " + (file == null ? spoolDir : file), e);
        }
      }
      if (total == 0) {
        return new AudioOrProblem(
            null,
            new UploadResult.Invalid(UploadResult.Reason.EMPTY_AUDIO, "the audio part is empty"));
      }
      if (!sniffed) {
        Optional<AudioContainer> found = AudioContainer.sniff(head, headLength);
        if (found.isEmpty()) {
          return new AudioOrProblem(null, unsupported(head, headLength));
        }
        container = found.get();
      }
      String sha256 = HexFormat.of().formatHex(digest.digest());
      if (out != null) {
        try {
          out.close();
        } catch (IOException e) {
          throw new SpoolFailure("closing " + file, e);
        }
        out = null;
      }
      Measurement measurement =
          file != null
              ? measure(container, file)
              : measure(container, SeekableSource.of(memory, memoryLength));
      OptionalLong duration;
      switch (measurement) {
        case Measurement.Measured measured -> duration = OptionalLong.of(measured.millis());
        // The caller falls back on the claim or an estimate from the size.
        case Measurement.Unmeasurable unmeasurable -> duration = OptionalLong.empty();
        case Measurement.Contradicts contradicts -> {
          return new AudioOrProblem(
              null,
              new UploadResult.Invalid(
                  UploadResult.Reason.INVALID_AUDIO,
                  "the "
                      + container.extension()
                      + " note's headers contradict its bytes: "
                      + contradicts.message()));
        }
      }
      long held = reserved;
      SpooledAudio audio =
          file != null
              ? SpooledAudio.inFile(
                  file, total, sha256, container, duration, () -> spoolInUse.addAndGet(-held))
              : SpooledAudio.inMemory(
                  Arrays.copyOf(memory, memoryLength), sha256, container, duration);
      complete = true;
      return new AudioOrProblem(audio, null);
    } finally {
      if (!complete) {
        spoolInUse.addAndGet(-reserved);
        discard(out, file);
      }
    }
  }

  private static void discard(@Nullable OutputStream out, @Nullable Path file) {
    try {
      if (out != null) {
        out.close();
      }
      if (file != null) {
        Files.deleteIfExists(file);
      }
    } catch (IOException e) {
      log.warn("could not delete spool file {}: {}", file, e.toString());
    }
  }

  /** Whether a read failed for time: the rate guard, or Jetty's idle timeout on a silent body. */
  private static boolean tooSlow(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof MinimumRateInputStream.TooSlowException
          || t instanceof java.util.concurrent.TimeoutException
          || t instanceof java.net.SocketTimeoutException) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /** The spool (the server's disk) failed; never the client's fault. */
  private static final class SpoolFailure extends IOException {
    private static final long serialVersionUID = 1L;

    SpoolFailure(String message, IOException cause) {
      super(message, cause);
    }
  }

  /** Spooling this upload would pass {@code BOLO_SPOOL_MAX_BYTES}. */
  private static final class SpoolFull extends Exception {
    private static final long serialVersionUID = 1L;

    SpoolFull() {
      super(null, null, false, false);
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

  private static UploadResult.Invalid unsupported(byte[] head, int length) {
    String magic = HexFormat.of().formatHex(head, 0, Math.min(length, 8));
    return new UploadResult.Invalid(
        UploadResult.Reason.UNSUPPORTED_AUDIO,
        "not a recognised audio container (WAV, MP3, M4A/MP4, OGG/Opus, WebM, FLAC, AAC); first bytes "
            + magic);
  }

  private static Optional<String> readField(FileItemInput item) throws IOException {
    try (InputStream in = item.getInputStream()) {
      byte[] bytes = in.readNBytes(MAX_FIELD_BYTES + 1);
      if (bytes.length > MAX_FIELD_BYTES) {
        return Optional.empty();
      }
      return Optional.of(new String(bytes, StandardCharsets.UTF_8));
    }
  }

  private static void closeQuietly(@Nullable SpooledAudio audio) {
    if (audio != null) {
      audio.close();
    }
  }

  private static RequestContext context(String contentType, long contentLength, InputStream body) {
    return new RequestContext() {
      @Override
      public String getCharacterEncoding() {
        return StandardCharsets.UTF_8.name();
      }

      @Override
      public long getContentLength() {
        return contentLength;
      }

      @Override
      public String getContentType() {
        return contentType;
      }

      @Override
      public InputStream getInputStream() {
        return body;
      }

      @Override
      public boolean isMultipartRelated() {
        return false;
      }
    };
  }
}
