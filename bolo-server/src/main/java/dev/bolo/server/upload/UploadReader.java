package dev.bolo.server.upload;

import dev.bolo.server.health.Readiness;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads an upload's body as it streams in, the one way for every body: a note's POST and each
 * append to a resumable upload are first admitted ({@link UploadAdmission}: the device's bodies at
 * once, the byte budget, an upload slot), then read through the rate guard ({@link
 * MinimumRateInputStream}). A note's multipart body is parsed on the way ({@link
 * MultipartNoteParser}): the audio part is hashed (SHA-256) while its bytes arrive, kept in memory
 * up to a threshold and spooled beyond it within the {@link SpoolBudget}, and refused as soon as it
 * passes the size limit; once it has arrived, its length is measured from its container's headers.
 * An append goes to its {@link PartialNote}.
 *
 * <p>Thread safe: one reader serves every request.
 */
public final class UploadReader {

  private static final Logger log = LoggerFactory.getLogger(UploadReader.class);

  /**
   * Room a client's body may take on top of its audio: multipart boundaries and text parts. Not
   * what the gateway's own request to a provider adds ({@code EngineLimits.PROVIDER_FORM_BYTES}).
   */
  public static final long CLIENT_FORM_ALLOWANCE_BYTES = 1024 * 1024;

  private final long maxAudioBytes;
  private final int inMemoryBytes;
  private final Path spoolDir;
  private final SpoolBudget spool;
  private final UploadAdmission admission;
  private final MultipartNoteParser parser;
  private final long minBytesPerSecond;
  private final Duration rateWindow;
  private final LongSupplier nanoTime;

  /**
   * @param maxAudioBytes the largest accepted note ({@code BOLO_MAX_UPLOAD_BYTES})
   * @param inMemoryBytes notes up to this size stay in memory; larger ones spool to disk
   * @param spoolDir where temp files go; created if missing
   * @param nanoTime monotonic nanoseconds for the body rate
   */
  public UploadReader(long maxAudioBytes, int inMemoryBytes, Path spoolDir, LongSupplier nanoTime) {
    this(
        maxAudioBytes,
        inMemoryBytes,
        spoolDir,
        new Bounds(Integer.MAX_VALUE, Integer.MAX_VALUE, Long.MAX_VALUE, 1, Duration.ofDays(1)),
        nanoTime);
  }

  /**
   * What one gateway lets its uploads hold and how slow they may be.
   *
   * @param maxConcurrentUploads bodies read at once; a further one waits for a slot what is left of
   *     {@code queueWait}, then is refused
   * @param maxBodiesPerDevice bodies one device sends at once; a further one is refused at once, so
   *     one token (perhaps stolen) can never hold every slot
   * @param spoolMaxBytes spool bytes in use at once
   * @param minBytesPerSecond the slowest accepted body, averaged over {@code rateWindow}
   * @param rateWindow the averaging window
   * @param budgetBytes declared bytes of bodies read at once (see {@link UploadBudget}); bodies
   *     that stay in memory are admitted at once, larger ones wait for room
   * @param queueWait how long a body waits its turn to be read, for room in the budget and for a
   *     slot together, before it is refused
   */
  public record Bounds(
      int maxConcurrentUploads,
      int maxBodiesPerDevice,
      long spoolMaxBytes,
      long minBytesPerSecond,
      Duration rateWindow,
      long budgetBytes,
      Duration queueWait) {
    public Bounds {
      if (budgetBytes <= 0 || queueWait.isNegative()) {
        throw new IllegalArgumentException(
            "budgetBytes must be positive and queueWait not negative: "
                + budgetBytes
                + ", "
                + queueWait);
      }
    }

    /** These bounds with another spool budget (one fitted to the disk, say). */
    public Bounds withSpoolMaxBytes(long bytes) {
      return new Bounds(
          maxConcurrentUploads,
          maxBodiesPerDevice,
          bytes,
          minBytesPerSecond,
          rateWindow,
          budgetBytes,
          queueWait);
    }

    /**
     * Bounds without a byte budget and without a wait: every body is admitted at once while a slot
     * is free, and turned away at once when none is.
     */
    public Bounds(
        int maxConcurrentUploads,
        int maxBodiesPerDevice,
        long spoolMaxBytes,
        long minBytesPerSecond,
        Duration rateWindow) {
      this(
          maxConcurrentUploads,
          maxBodiesPerDevice,
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
    this(maxAudioBytes, inMemoryBytes, spoolDir, bounds, nanoTime, new TransferBuffers());
  }

  /**
   * @param maxAudioBytes the largest accepted note ({@code BOLO_MAX_UPLOAD_BYTES})
   * @param inMemoryBytes notes up to this size stay in memory; larger ones spool to disk
   * @param spoolDir where temp files go; created if missing
   * @param bounds concurrency, spool and rate limits
   * @param nanoTime monotonic nanoseconds for the body rate
   * @param buffers the arrays bodies are read into, shared with whatever else the gateway moves
   *     notes through
   */
  public UploadReader(
      long maxAudioBytes,
      int inMemoryBytes,
      Path spoolDir,
      Bounds bounds,
      LongSupplier nanoTime,
      TransferBuffers buffers) {
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
    this.spool = new SpoolBudget(bounds.spoolMaxBytes());
    this.admission =
        new UploadAdmission(
            bounds.maxConcurrentUploads(),
            bounds.maxBodiesPerDevice(),
            new UploadBudget(bounds.budgetBytes(), inMemoryBytes),
            bounds.queueWait(),
            nanoTime);
    this.minBytesPerSecond = bounds.minBytesPerSecond();
    this.rateWindow = bounds.rateWindow();
    this.nanoTime = nanoTime;
    this.parser =
        new MultipartNoteParser(
            new AudioSink.Config(maxAudioBytes, inMemoryBytes, spoolDir, spool, new SpoolBuffers()),
            buffers,
            minBytesPerSecond,
            rateWindow);
  }

  /** The largest accepted note in bytes. */
  public long maxAudioBytes() {
    return maxAudioBytes;
  }

  /**
   * The largest note a resumable upload may be: a device's share of the spool budget, since such an
   * upload holds its whole length there from its creation (see {@link
   * SpoolBudget#deviceShareBytes()}).
   */
  public long maxResumableBytes() {
    return spool.deviceShareBytes();
  }

  /** Why a note larger than one POST takes is refused, naming both limits. */
  public String tooLargeMessage() {
    return NoteSizes.tooLargeForPost(maxAudioBytes, maxResumableBytes());
  }

  /** The largest accepted request body: the largest note and its form around it. */
  public long maxBodyBytes() {
    return maxBodyBytes(maxAudioBytes);
  }

  /**
   * The largest body that carries a note of {@code maxAudioBytes}: the note and {@link
   * #CLIENT_FORM_ALLOWANCE_BYTES} around it, saturating at {@link Long#MAX_VALUE}.
   */
  public static long maxBodyBytes(long maxAudioBytes) {
    return maxAudioBytes > Long.MAX_VALUE - CLIENT_FORM_ALLOWANCE_BYTES
        ? Long.MAX_VALUE
        : maxAudioBytes + CLIENT_FORM_ALLOWANCE_BYTES;
  }

  /** The spool's byte budget every upload holds its spooled bytes in. */
  public SpoolBudget spoolBudget() {
    return spool;
  }

  /**
   * Declared bytes of the bodies being read now (the byte budget in use), for metrics and tests.
   */
  public long admittedBytes() {
    return admission.admittedBytes();
  }

  /** Bodies waiting for room in the byte budget now, for metrics and tests. */
  public int waitingUploads() {
    return admission.waitingUploads();
  }

  /** Spool bytes held by uploads now, for metrics and tests. */
  public long spoolBytesInUse() {
    return spool.inUseBytes();
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
   * Reads one upload no device limit applies to. On {@link UploadResult.Invalid} for size or
   * container the rest of the body is left unread; the caller decides how much of it to drain.
   */
  public UploadResult read(@Nullable String contentType, long contentLength, InputStream body)
      throws IOException {
    return readNote(null, contentType, contentLength, body);
  }

  /**
   * Reads one upload of {@code device}, which may send at most {@code maxBodiesPerDevice} bodies at
   * once: beyond that the upload is refused at once as {@link UploadResult.Reason#DEVICE_BUSY}.
   */
  public UploadResult read(
      String device, @Nullable String contentType, long contentLength, InputStream body)
      throws IOException {
    return readNote(device, contentType, contentLength, body);
  }

  private UploadResult readNote(
      @Nullable String device, @Nullable String contentType, long contentLength, InputStream body)
      throws IOException {
    // A chunked body declares no length: charge it as the largest note it may turn out to be.
    long declared = contentLength >= 0 ? contentLength : maxAudioBytes;
    return switch (admission.admit(device, declared, UploadAdmission.Body.NOTE)) {
      case UploadAdmission.Decision.TurnedAway turnedAway -> turnedAway.why();
      case UploadAdmission.Decision.Admitted admitted -> {
        try (UploadAdmission.Ticket ticket = admitted.ticket()) {
          yield parser.parse(contentType, contentLength, rateGuarded(body));
        }
      }
    };
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
   * room} bytes, admitted and rate-guarded as a whole upload is. Bytes that arrived before the body
   * broke off or fell below the rate are kept. The caller holds the note's lock.
   *
   * @throws IOException when the spool cannot be written (the gateway's fault)
   */
  public AppendResult append(
      String device, PartialNote note, long contentLength, long room, InputStream body)
      throws IOException {
    long declared = contentLength >= 0 ? Math.min(contentLength, room) : room;
    switch (admission.admit(device, declared, UploadAdmission.Body.APPEND)) {
      case UploadAdmission.Decision.TurnedAway turnedAway -> {
        return new AppendResult(0, turnedAway.why(), false);
      }
      case UploadAdmission.Decision.Admitted admitted -> {
        try (UploadAdmission.Ticket ticket = admitted.ticket()) {
          PartialNote.Appended appended = note.append(rateGuarded(body), room);
          return new AppendResult(appended.bytes(), interruption(appended), appended.overran());
        }
      }
    }
  }

  /** Why an append stopped before its body ended, or null when it did not. */
  private UploadResult.@Nullable Invalid interruption(PartialNote.Appended appended) {
    IOException broke = appended.interruption();
    if (broke == null) {
      return null;
    }
    log.info("append stopped after {} bytes: {}", appended.bytes(), broke.toString());
    return MultipartNoteParser.tooSlow(broke)
        ? new UploadResult.Invalid(
            UploadResult.Reason.TOO_SLOW,
            "the append arrived slower than "
                + minBytesPerSecond
                + " bytes per second, or stopped; resume from the stored offset")
        : MultipartNoteParser.malformed();
  }

  /** The body as every upload reads it: failing once it falls below the slowest accepted rate. */
  private InputStream rateGuarded(InputStream body) {
    return new MinimumRateInputStream(body, minBytesPerSecond, rateWindow, nanoTime);
  }
}
