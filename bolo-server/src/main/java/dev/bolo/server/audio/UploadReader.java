package dev.bolo.server.audio;

import dev.bolo.server.health.Readiness;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.MultiPart;
import org.eclipse.jetty.io.Content;
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

  /** Room for multipart boundaries and text parts on top of the audio in one body. */
  public static final long FORM_OVERHEAD_BYTES = 1024 * 1024;

  /** Field names the audio may arrive in: Bolo's own and OpenAI's. */
  private static final List<String> AUDIO_FIELDS = List.of("audio", "file");

  /** Text parts are short settings; a prompt of 16 KiB is already far beyond any provider's. */
  private static final int MAX_FIELD_BYTES = 16 * 1024;

  private static final int MAX_FIELDS = 64;

  /** The boundary parameter's name, in any case. */
  private static final java.util.regex.Pattern BOUNDARY_PARAMETER =
      java.util.regex.Pattern.compile("(?i)(;\\s*)boundary=");

  /** RFC 2046: a boundary is 1 to 70 characters. */
  private static final int MAX_BOUNDARY_CHARS = 70;

  /** All headers of one part together: a name, a file name and a type need far less. */
  private static final int MAX_PART_HEADER_BYTES = 512;

  private static final int BUFFER_BYTES = 64 * 1024;
  private static final int MIN_BUFFER_BYTES = 4 * 1024;

  /** How long an upload waits for one of the {@code maxConcurrentUploads} slots. */
  private static final long SLOT_WAIT_MS = 1000;

  private final long maxAudioBytes;
  private final int inMemoryBytes;
  private final Path spoolDir;
  private final Semaphore uploadSlots;
  private final int maxUploadsPerDevice;
  private final ConcurrentHashMap<String, Integer> uploadsByDevice = new ConcurrentHashMap<>();
  private final long spoolMaxBytes;
  private final AtomicLong spoolInUse = new AtomicLong();
  private final long minBytesPerSecond;
  private final Duration rateWindow;
  private final LongSupplier nanoTime;
  private final UploadBudget budget;
  private final Duration budgetWait;

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
        new Bounds(Integer.MAX_VALUE, Integer.MAX_VALUE, Long.MAX_VALUE, 1, Duration.ofDays(1)),
        System::nanoTime);
  }

  /**
   * What one gateway lets its uploads hold and how slow they may be.
   *
   * @param maxConcurrentUploads bodies read at once; a further one waits a second, then is refused
   * @param maxUploadsPerDevice bodies one device sends at once; a further one is refused at once,
   *     so one token (perhaps stolen) can never hold every slot
   * @param spoolMaxBytes spool bytes in use at once
   * @param minBytesPerSecond the slowest accepted body, averaged over {@code rateWindow}
   * @param rateWindow the averaging window
   * @param budgetBytes declared bytes of bodies read at once (see {@link UploadBudget}); bodies
   *     that stay in memory are admitted at once, larger ones wait for room
   * @param budgetWait how long a larger body waits for room before it is refused
   */
  public record Bounds(
      int maxConcurrentUploads,
      int maxUploadsPerDevice,
      long spoolMaxBytes,
      long minBytesPerSecond,
      Duration rateWindow,
      long budgetBytes,
      Duration budgetWait) {
    public Bounds {
      if (budgetBytes <= 0 || budgetWait.isNegative()) {
        throw new IllegalArgumentException(
            "budgetBytes must be positive and budgetWait not negative: "
                + budgetBytes
                + ", "
                + budgetWait);
      }
    }

    /** Bounds without a byte budget: every body is admitted at once. */
    public Bounds(
        int maxConcurrentUploads,
        int maxUploadsPerDevice,
        long spoolMaxBytes,
        long minBytesPerSecond,
        Duration rateWindow) {
      this(
          maxConcurrentUploads,
          maxUploadsPerDevice,
          spoolMaxBytes,
          minBytesPerSecond,
          rateWindow,
          Long.MAX_VALUE,
          Duration.ZERO);
    }
  }

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
    this.maxUploadsPerDevice = bounds.maxUploadsPerDevice();
    this.spoolMaxBytes = bounds.spoolMaxBytes();
    this.minBytesPerSecond = bounds.minBytesPerSecond();
    this.rateWindow = bounds.rateWindow();
    this.nanoTime = nanoTime;
    this.budget = new UploadBudget(bounds.budgetBytes(), inMemoryBytes);
    this.budgetWait = bounds.budgetWait();
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

  /** The largest accepted request body: the largest note and its form around it. */
  public long maxBodyBytes() {
    return maxBodyBytes(maxAudioBytes);
  }

  /**
   * The largest body that carries a note of {@code maxAudioBytes}: the note and {@link
   * #FORM_OVERHEAD_BYTES} around it, saturating at {@link Long#MAX_VALUE}.
   */
  public static long maxBodyBytes(long maxAudioBytes) {
    return maxAudioBytes > Long.MAX_VALUE - FORM_OVERHEAD_BYTES
        ? Long.MAX_VALUE
        : maxAudioBytes + FORM_OVERHEAD_BYTES;
  }

  /**
   * Declared bytes of the bodies being read now (the byte budget in use), for metrics and tests.
   */
  public long admittedBytes() {
    return budget.inUseBytes();
  }

  /** Bodies waiting for room in the byte budget now, for metrics and tests. */
  public int waitingUploads() {
    return budget.waiting();
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
    return readAdmittedToBudget(contentType, contentLength, body);
  }

  /**
   * Reads one upload of {@code device}, which may send at most {@code maxUploadsPerDevice} bodies
   * at once: beyond that the upload is refused at once as {@link UploadResult.Reason#DEVICE_BUSY}.
   */
  public UploadResult read(
      String device, @Nullable String contentType, long contentLength, InputStream body)
      throws IOException {
    if (!startUpload(device)) {
      return new UploadResult.Invalid(
          UploadResult.Reason.DEVICE_BUSY,
          "this device is already sending "
              + maxUploadsPerDevice
              + " notes at once; resend when one of them has arrived");
    }
    try {
      return readAdmittedToBudget(contentType, contentLength, body);
    } finally {
      uploadsByDevice.computeIfPresent(device, (name, count) -> count <= 1 ? null : count - 1);
    }
  }

  /**
   * How an append to a resumable upload ended.
   *
   * @param bytes bytes stored by this append, kept even when the body broke off
   * @param refusal why the append stopped early or was not read at all, or null when the body was
   *     read whole
   * @param overran the body went on past {@code room}
   */
  public record AppendResult(long bytes, UploadResult.@Nullable Invalid refusal, boolean overran) {}

  /**
   * Reads one append to a resumable upload of {@code device} into {@code note}, at most {@code
   * room} bytes, under the same bounds as a whole upload: the device's bodies at once, the byte
   * budget, the upload slots and the slowest accepted rate. Bytes that arrived before the body
   * broke off or fell below the rate are kept. The caller holds the note's lock.
   *
   * @throws IOException when the spool cannot be written (the gateway's fault)
   */
  public AppendResult append(
      String device, PartialNote note, long contentLength, long room, InputStream body)
      throws IOException {
    if (!startUpload(device)) {
      return new AppendResult(
          0,
          new UploadResult.Invalid(
              UploadResult.Reason.DEVICE_BUSY,
              "this device is already sending "
                  + maxUploadsPerDevice
                  + " bodies at once; resume when one of them has arrived"),
          false);
    }
    try {
      long declared = contentLength >= 0 ? Math.min(contentLength, room) : room;
      UploadBudget.Admission admission = budget.admit(declared, budgetWait);
      if (admission == null) {
        Duration retryAfter = Duration.ofSeconds(Math.max(1, (budgetWait.toMillis() + 999) / 1000));
        return new AppendResult(
            0,
            new UploadResult.Invalid(
                UploadResult.Reason.SERVER_BUSY,
                "the gateway is reading as many large uploads as it can take; resume in "
                    + retryAfter.toSeconds()
                    + " s",
                retryAfter),
            false);
      }
      try (admission) {
        if (!acquireSlot()) {
          return new AppendResult(
              0,
              new UploadResult.Invalid(
                  UploadResult.Reason.SERVER_BUSY, "too many uploads at once; resume shortly"),
              false);
        }
        try {
          PartialNote.Appended appended =
              note.append(
                  new MinimumRateInputStream(body, minBytesPerSecond, rateWindow, nanoTime), room);
          IOException broke = appended.interruption();
          UploadResult.@Nullable Invalid refusal = null;
          if (broke != null) {
            log.info("append stopped after {} bytes: {}", appended.bytes(), broke.toString());
            refusal =
                tooSlow(broke)
                    ? new UploadResult.Invalid(
                        UploadResult.Reason.TOO_SLOW,
                        "the append arrived slower than "
                            + minBytesPerSecond
                            + " bytes per second, or stopped; resume from the stored offset")
                    : malformed();
          }
          return new AppendResult(appended.bytes(), refusal, appended.overran());
        } finally {
          uploadSlots.release();
        }
      }
    } finally {
      uploadsByDevice.computeIfPresent(device, (name, count) -> count <= 1 ? null : count - 1);
    }
  }

  private boolean acquireSlot() {
    try {
      return uploadSlots.tryAcquire(SLOT_WAIT_MS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Holds {@code bytes} of the spool budget ({@code BOLO_SPOOL_MAX_BYTES}) for a resumable upload
   * from its creation to its end, so that open uploads cannot fill the disk.
   *
   * @return false when that would pass the budget; nothing is held then
   */
  public boolean holdSpool(long bytes) {
    if (spoolInUse.addAndGet(bytes) > spoolMaxBytes) {
      spoolInUse.addAndGet(-bytes);
      return false;
    }
    return true;
  }

  /** Gives back what {@link #holdSpool} held. */
  public void releaseSpool(long bytes) {
    spoolInUse.addAndGet(-bytes);
  }

  private boolean startUpload(String device) {
    boolean[] started = {false};
    uploadsByDevice.compute(
        device,
        (name, count) -> {
          int now = count == null ? 0 : count;
          if (now >= maxUploadsPerDevice) {
            return count;
          }
          started[0] = true;
          return now + 1;
        });
    return started[0];
  }

  /**
   * Takes the body's share of the byte budget before reading any of it, and gives it back when the
   * body has been read, whatever the outcome.
   */
  private UploadResult readAdmittedToBudget(
      @Nullable String contentType, long contentLength, InputStream body) throws IOException {
    // A chunked body declares no length: charge it as the largest note it may turn out to be.
    long declared = contentLength >= 0 ? contentLength : maxAudioBytes;
    UploadBudget.Admission admission = budget.admit(declared, budgetWait);
    if (admission == null) {
      // Answered before any of the body is read. Resending after about as long as this one waited
      // (in whole seconds, as RFC 9110's Retry-After counts, at least one) gives the bodies ahead
      // of it time to finish.
      Duration retryAfter = Duration.ofSeconds(Math.max(1, (budgetWait.toMillis() + 999) / 1000));
      log.info(
          "upload of {} bytes not admitted: {} bytes of {} in flight, {} waiting",
          declared,
          budget.inUseBytes(),
          budget.capacityBytes(),
          budget.waiting());
      return new UploadResult.Invalid(
          UploadResult.Reason.SERVER_BUSY,
          "the gateway is reading as many large uploads as it can take; resend in "
              + retryAfter.toSeconds()
              + " s",
          retryAfter);
    }
    try (admission) {
      return readAdmittedToSlot(contentType, contentLength, body);
    }
  }

  private UploadResult readAdmittedToSlot(
      @Nullable String contentType, long contentLength, InputStream body) throws IOException {
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
        || !contentType.toLowerCase(Locale.ROOT).startsWith("multipart/form-data")) {
      return new UploadResult.Invalid(
          UploadResult.Reason.NOT_MULTIPART,
          "expected multipart/form-data with the audio in part 'audio' or 'file', got "
              + (contentType == null ? "no content type" : contentType));
    }
    @Nullable String boundary;
    try {
      // Parameter names are case-insensitive (RFC 2045); Jetty looks for "boundary" only.
      boundary =
          MultiPart.extractBoundary(
              BOUNDARY_PARAMETER.matcher(contentType).replaceFirst("$1boundary="));
    } catch (IllegalArgumentException e) {
      // A broken parameter list, such as an unterminated quote: the client's malformed header.
      boundary = null;
    }
    if (boundary == null || boundary.isEmpty() || boundary.length() > MAX_BOUNDARY_CHARS) {
      return new UploadResult.Invalid(
          UploadResult.Reason.MALFORMED,
          "multipart/form-data needs a boundary of 1 to " + MAX_BOUNDARY_CHARS + " characters");
    }
    try (Parts parts = new Parts(contentLength)) {
      MultiPart.Parser parser = new MultiPart.Parser(boundary, parts);
      parser.setPartHeadersMaxLength(MAX_PART_HEADER_BYTES);
      // The parser hands every piece of content to the listener before parse returns, so one
      // buffer serves the whole body.
      byte[] buffer = new byte[bufferBytes(contentLength)];
      try {
        while (parts.result() == null) {
          int n = body.read(buffer);
          if (n == -1) {
            parser.parse(Content.Chunk.EOF);
            break;
          }
          if (n > 0) {
            parser.parse(Content.Chunk.from(ByteBuffer.wrap(buffer, 0, n), false));
          }
        }
      } catch (IOException e) {
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
        // The client vanished mid-body; nothing was transcribed.
        log.info("upload incomplete: {}", e.toString());
        return malformed();
      }
      UploadResult result = parts.result();
      return result != null ? parts.handOver(result) : malformed();
    }
  }

  /**
   * The read buffer for a body of the declared length (-1: unknown): a short note does not need the
   * whole 64 KiB, which thousands of uploads in flight would otherwise hold at once.
   */
  static int bufferBytes(long contentLength) {
    if (contentLength < 0) {
      return BUFFER_BYTES;
    }
    return (int) Math.clamp(contentLength, MIN_BUFFER_BYTES, BUFFER_BYTES);
  }

  private static UploadResult.Invalid malformed() {
    return new UploadResult.Invalid(
        UploadResult.Reason.MALFORMED,
        "upload incomplete or malformed multipart/form-data; nothing was transcribed");
  }

  /**
   * The parts of one upload as the parser finds them: the audio part into an {@link AudioSink},
   * short text parts into fields. The first refusal ends the upload ({@link #result}); closing
   * discards a note that was not handed over.
   */
  private final class Parts extends MultiPart.AbstractPartsListener implements AutoCloseable {
    private final long contentLength;
    private final Map<String, List<String>> fields = new LinkedHashMap<>();
    private int count;
    private String name = "";
    private @Nullable AudioSink sink;
    private @Nullable SpooledAudio audio;
    private byte[] field = new byte[256];
    private int fieldLength;
    private @Nullable UploadResult result;

    Parts(long contentLength) {
      this.contentLength = contentLength;
    }

    @Nullable UploadResult result() {
      return result;
    }

    /** The final result; the note in it now belongs to the caller. */
    UploadResult handOver(UploadResult finalResult) {
      audio = null;
      return finalResult;
    }

    private void refuse(UploadResult.Invalid why) {
      if (result == null) {
        result = why;
        close();
      }
    }

    @Override
    public void onPartBegin() {
      if (++count > MAX_FIELDS) {
        refuse(
            new UploadResult.Invalid(
                UploadResult.Reason.BAD_FIELD, "more than " + MAX_FIELDS + " parts"));
      }
    }

    @Override
    public void onPartHeaders() {
      if (result != null) {
        return;
      }
      name = Objects.requireNonNullElse(getName(), "");
      fieldLength = 0;
      if (AUDIO_FIELDS.contains(name)) {
        if (audio != null) {
          refuse(
              new UploadResult.Invalid(
                  UploadResult.Reason.BAD_FIELD,
                  "more than one audio part; send one note per request"));
          return;
        }
        sink =
            new AudioSink(
                maxAudioBytes, inMemoryBytes, spoolDir, spoolInUse, spoolMaxBytes, contentLength);
      }
    }

    @Override
    public void onPartContent(Content.Chunk chunk) {
      try {
        if (result != null) {
          return;
        }
        ByteBuffer bytes = chunk.getByteBuffer();
        AudioSink to = sink;
        if (to != null) {
          UploadResult.@Nullable Invalid refused = to.write(bytes);
          if (refused != null) {
            refuse(refused);
          }
          return;
        }
        int n = bytes.remaining();
        if (fieldLength + n > MAX_FIELD_BYTES) {
          refuse(
              new UploadResult.Invalid(
                  UploadResult.Reason.BAD_FIELD,
                  "part '" + name + "' exceeds " + MAX_FIELD_BYTES + " bytes"));
          return;
        }
        if (fieldLength + n > field.length) {
          field =
              Arrays.copyOf(
                  field, Math.min(MAX_FIELD_BYTES, Math.max(field.length * 2, fieldLength + n)));
        }
        bytes.get(field, fieldLength, n);
        fieldLength += n;
      } catch (AudioSink.SpoolFailure e) {
        spoolFailed(e);
      } catch (AudioSink.SpoolFull e) {
        log.warn("spool full: {} of {} bytes in use", spoolInUse.get(), spoolMaxBytes);
        refuse(
            new UploadResult.Invalid(
                UploadResult.Reason.SERVER_BUSY,
                "the gateway is holding too many uploads; resend shortly"));
      }
      // Not released here: the parser releases the chunks it makes itself, and none of them
      // holds pooled memory (they wrap this upload's own buffer).
    }

    private void spoolFailed(AudioSink.SpoolFailure e) {
      // The server's disk, not the phone: a resend may succeed. The path stays in the log.
      log.error("cannot spool an upload: {}", e.getMessage(), e.getCause());
      refuse(
          new UploadResult.Invalid(
              UploadResult.Reason.SERVER_BUSY,
              "the gateway cannot store uploads right now; resend shortly"));
    }

    @Override
    public void onPartEnd() {
      super.onPartEnd();
      if (result != null) {
        return;
      }
      AudioSink finished = sink;
      if (finished != null) {
        sink = null;
        try {
          switch (finished.finish()) {
            case AudioSink.Finished.Note note -> audio = note.audio();
            case AudioSink.Finished.Refused refused -> {
              finished.close();
              refuse(refused.why());
            }
          }
        } catch (AudioSink.SpoolFailure e) {
          finished.close();
          spoolFailed(e);
        }
        return;
      }
      fields
          .computeIfAbsent(name, k -> new ArrayList<>())
          .add(new String(field, 0, fieldLength, StandardCharsets.UTF_8));
    }

    @Override
    public void onPart(String name, @Nullable String fileName, HttpFields headers) {
      // Each part was taken as it streamed in: see onPartContent and onPartEnd.
    }

    @Override
    public void onComplete() {
      if (result != null) {
        return;
      }
      SpooledAudio note = audio;
      result =
          note == null
              ? new UploadResult.Invalid(
                  UploadResult.Reason.MISSING_AUDIO,
                  "no audio: send the note in part 'audio' or 'file'")
              : new UploadResult.Received(new Upload(note, fields));
    }

    @Override
    public void onFailure(Throwable failure) {
      log.info("malformed multipart upload: {}", failure.toString());
      refuse(malformed());
    }

    /** Discards a note still being read or not handed over. */
    @Override
    public void close() {
      AudioSink open = sink;
      if (open != null) {
        open.close();
        sink = null;
      }
      SpooledAudio note = audio;
      if (note != null) {
        note.close();
        audio = null;
      }
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
}
