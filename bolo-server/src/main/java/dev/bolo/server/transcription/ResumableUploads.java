package dev.bolo.server.transcription;

import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.StoredUpload;
import dev.bolo.server.ledger.UploadRegistry;
import dev.bolo.server.upload.PartialNote;
import dev.bolo.server.upload.UploadReader;
import dev.bolo.server.upload.UploadResult;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resumable uploads of notes (tus 1.0 and the IETF draft share this one store): created by a
 * device, appended to across connections and restarts, and transcribed exactly like a POST once the
 * last byte arrived. Composed as tusd's handler is: the {@link UploadStore} keeps records and
 * bytes, the {@link Locker} lets one append at a time into an upload, this class checks offsets and
 * lengths, and the {@link UploadCompletion} ends an upload whose last byte arrived. Knows nothing
 * of HTTP. Thread safe.
 */
public final class ResumableUploads {

  private static final Logger log = LoggerFactory.getLogger(ResumableUploads.class);
  private static final SecureRandom IDS = new SecureRandom();

  private final UploadStore store;
  private final Locker locker = new Locker();
  private final UploadCompletion completion;
  private final UploadReader reader;
  private final Intake intake;
  private final Clock clock;
  private final Duration ttl;
  private final int maxUnfinishedPerDevice;
  private final Duration lockWait;

  /**
   * @param spoolDir this instance's folder for upload files (kept across restarts)
   * @param instanceId this instance's lasting id, recorded with every upload it takes
   * @param ttl {@code BOLO_UPLOAD_TTL}: how long an upload lives after its creation
   * @param maxUnfinishedPerDevice uploads one device may have open at once
   * @param lockWait how long an append waits for an earlier one on the same upload, whose
   *     connection may have died unnoticed: the body rate window, after which that read fails
   * @param work runs transcriptions that outlive the request that completed the upload
   */
  public ResumableUploads(
      UploadRegistry registry,
      UploadReader reader,
      Transcriber transcriber,
      Path spoolDir,
      String instanceId,
      Clock clock,
      LongSupplier waits,
      Duration ttl,
      int maxUnfinishedPerDevice,
      Duration lockWait,
      Executor work) {
    this(
        new UploadStore(registry, SpoolHolds.in(reader.spoolBudget()), spoolDir, instanceId, clock),
        reader,
        transcriber.transcriptions(),
        UploadTranscriber.of(transcriber),
        work,
        clock,
        waits,
        ttl,
        maxUnfinishedPerDevice,
        lockWait);
  }

  /**
   * The uploads over parts given as they are: unit tests stand in for the use case and the work.
   *
   * @param intake where the finished notes come in, as a POST's do
   * @param transcriber the use case that transcribes them and finds their stored answers
   */
  ResumableUploads(
      UploadStore store,
      UploadReader reader,
      Intake intake,
      UploadTranscriber transcriber,
      Executor work,
      Clock clock,
      LongSupplier waits,
      Duration ttl,
      int maxUnfinishedPerDevice,
      Duration lockWait) {
    this.store = Objects.requireNonNull(store, "store");
    this.reader = Objects.requireNonNull(reader, "reader");
    this.intake = Objects.requireNonNull(intake, "intake");
    this.completion = new UploadCompletion(store, intake, transcriber, work, waits);
    this.clock = Objects.requireNonNull(clock, "clock");
    this.ttl = Objects.requireNonNull(ttl, "ttl");
    if (maxUnfinishedPerDevice < 1) {
      throw new IllegalArgumentException(
          "maxUnfinishedPerDevice must be >= 1: " + maxUnfinishedPerDevice);
    }
    this.maxUnfinishedPerDevice = maxUnfinishedPerDevice;
    this.lockWait = Objects.requireNonNull(lockWait, "lockWait");
  }

  /**
   * The largest note, in bytes: a device's share of the spool budget ({@code BOLO_SPOOL_MAX_BYTES}
   * fitted to the disk), which each upload holds its whole length of.
   */
  public long maxBytes() {
    return reader.maxResumableBytes();
  }

  /**
   * Creates an upload of {@code length} bytes, holding that much of the spool budget until it ends.
   * Its settings are checked now, as a POST's are.
   *
   * @param length the note's size in bytes, at least 1 (both protocols require it at creation)
   * @param fields the note's settings by form field name, kept with the upload
   */
  public UploadCreation create(
      Device device,
      UploadProtocol protocol,
      long length,
      Map<String, String> fields,
      @Nullable String declaredSha256,
      @Nullable String idempotencyKey) {
    if (length < 1) {
      throw new IllegalArgumentException("length must be >= 1: " + length);
    }
    Optional<NoteRefusal> refusal = intake.refusalOf(SettingFields.of(fields));
    if (refusal.isPresent()) {
      return new UploadCreation.Refused(refusal.get());
    }
    Instant now = clock.instant();
    byte[] random = new byte[16];
    IDS.nextBytes(random);
    StoredUpload upload =
        new StoredUpload(
            HexFormat.of().formatHex(random),
            device.name(),
            store.instanceId(),
            protocol.stored(),
            length,
            0,
            UploadStore.fieldsJson(fields),
            declaredSha256 == null ? null : declaredSha256.toLowerCase(Locale.ROOT),
            idempotencyKey,
            StoredUpload.State.OPEN,
            null,
            null,
            now,
            now.plus(ttl));
    for (boolean madeRoom = false; ; madeRoom = true) {
      // A hostile or broken client must not pile up open uploads, each holding spool: the bound
      // is checked in the same transaction that adds the upload, so concurrent creations (on any
      // instance) cannot pass it together.
      UploadCreation creation = store.create(upload, maxUnfinishedPerDevice);
      boolean atItsBound =
          creation instanceof UploadCreation.TooMany
              || creation instanceof UploadCreation.DeviceFull;
      if (!atItsBound || madeRoom || !dropOldestIdle(device)) {
        return creation;
      }
    }
  }

  /**
   * Makes room for a new upload of a device at its bound by deleting its oldest open upload that no
   * append is storing into, with its bytes. Uploads whose creation answer or address the phone
   * never got (a cut draft POST, a resent creation) would otherwise hold the device's slots until
   * they expire, a day by default; a phone that does resume a deleted upload is told 404 and starts
   * over. Uploads whose bytes another instance holds are left to it.
   *
   * @return whether one was deleted
   */
  private boolean dropOldestIdle(Device device) {
    for (StoredUpload upload : store.open(device)) {
      // Not waiting: an upload that an append holds is in use, the next oldest may not be.
      if (terminate(upload, Duration.ZERO) == UploadTermination.DELETED) {
        log.info(
            "device {} is at its {} unfinished uploads: deleted its oldest idle one, {}",
            device.name(),
            maxUnfinishedPerDevice,
            upload.id());
        return true;
      }
    }
    return false;
  }

  /** The device's upload with this id, unless it expired; another device's is never found. */
  public Optional<StoredUpload> find(Device device, String id) {
    return store.find(device, id);
  }

  /**
   * The upload once no append to it is arriving here, for a client asking where to resume: an
   * append whose connection just broke may still be storing what arrived, and an offset read before
   * it ends sends the client back too far (its next append is then refused as 409 after it has sent
   * its whole body again). Empty while an append still holds it after the lock wait.
   */
  public Optional<StoredUpload> settled(Device device, StoredUpload upload) {
    if (!store.holdsBytesOf(upload)) {
      return Optional.of(upload);
    }
    Optional<Locker.Held> held = locker.tryLock(upload.id(), lockWait);
    if (held.isEmpty()) {
      return Optional.empty();
    }
    try (Locker.Held lock = held.get()) {
      return Optional.of(find(device, upload.id()).orElse(upload));
    }
  }

  /**
   * Appends a body at {@code offset}. When the last byte arrives (the offset reaches the length, or
   * {@code last} says the body ends the note), the note is checked and transcribed exactly like a
   * POST's, on a thread of its own: a client that goes away never cancels it.
   *
   * @param last the client says this body is the note's end (IETF {@code Upload-Complete: ?1})
   * @throws IOException when the spool cannot be used (the gateway's fault)
   */
  public UploadAppend append(
      Device device,
      StoredUpload upload,
      long offset,
      long contentLength,
      InputStream body,
      boolean last,
      String requestId)
      throws IOException {
    // Its bytes are in another instance's spool: appending here would make a note of a hole.
    if (!store.holdsBytesOf(upload)) {
      return new UploadAppend.Elsewhere();
    }
    // Its last byte has arrived: the bytes went to the transcription, nothing is left to append to.
    if (upload.state() != StoredUpload.State.OPEN) {
      return notAppendable(upload, offset, contentLength, last);
    }
    Optional<Locker.Held> held = locker.tryLock(upload.id(), lockWait);
    if (held.isEmpty()) {
      return new UploadAppend.Locked();
    }
    try (Locker.Held lock = held.get()) {
      // Read again under the lock: an append that held it may have moved the offset or ended it.
      Optional<StoredUpload> fresh = find(device, upload.id());
      if (fresh.isEmpty()) {
        return new UploadAppend.Gone();
      }
      return appendLocked(device, fresh.get(), offset, contentLength, body, last, requestId);
    }
  }

  private UploadAppend appendLocked(
      Device device,
      StoredUpload current,
      long offset,
      long contentLength,
      InputStream body,
      boolean last,
      String requestId)
      throws IOException {
    if (current.state() == StoredUpload.State.OPEN) {
      long kept = store.kept(current);
      if (kept < current.offset()) {
        return store.rewind(device, current, kept);
      }
    }
    if (current.state() != StoredUpload.State.OPEN || offset != current.offset()) {
      return notAppendable(current, offset, contentLength, last);
    }
    PartialNote note = store.bytesOf(current);
    long room = current.length() - offset;
    if (contentLength > room) {
      return new UploadAppend.Overrun(current.length());
    }
    UploadReader.AppendResult result =
        reader.append(device.name(), note, contentLength, room, body);
    if (result.overran()) {
      note.cutBack(offset);
      return new UploadAppend.Overrun(current.length());
    }
    long reached = offset + result.bytes();
    boolean complete = result.refusal() == null && (last || reached == current.length());
    if (complete && reached != current.length()) {
      // The client ended the note short of the length it announced.
      note.cutBack(offset);
      return new UploadAppend.Inconsistent(reached, current.length());
    }
    if (result.bytes() > 0 && !store.advance(current, reached)) {
      note.cutBack(offset);
      return new UploadAppend.WrongOffset(offset);
    }
    StoredUpload stored = current.withOffset(reached, current.length());
    UploadResult.@Nullable Invalid refusal = result.refusal();
    if (refusal != null) {
      return result.bytes() == 0
              && refusal.reason() != UploadResult.Reason.TOO_SLOW
              && refusal.reason() != UploadResult.Reason.MALFORMED
          ? new UploadAppend.Unusable(refusal)
          : new UploadAppend.Interrupted(stored, refusal);
    }
    if (!complete) {
      return new UploadAppend.Appended(stored, null);
    }
    return new UploadAppend.Appended(stored, completion.complete(device, stored, note, requestId));
  }

  /**
   * An append to an upload that has ended, or at an offset that is not the stored one: an empty
   * body at the stored offset changes nothing and is answered as appended (a resent last append of
   * tus, whose first answer was lost); anything else is told the stored offset.
   */
  private static UploadAppend notAppendable(
      StoredUpload upload, long offset, long contentLength, boolean last) {
    boolean nothingNew = offset == upload.offset() && contentLength == 0 && !last;
    return nothingNew
        ? new UploadAppend.Appended(upload, null)
        : new UploadAppend.WrongOffset(upload.offset());
  }

  /**
   * Where the upload's transcription is, waiting up to {@code wait} for running work; see {@link
   * UploadCompletion#progress}.
   *
   * @param requestId the asking request's id, for the work run again on its behalf
   * @throws InterruptedException if the request thread is interrupted; the work goes on
   */
  public UploadProgress transcription(
      Device device, StoredUpload upload, Duration wait, String requestId)
      throws InterruptedException {
    return completion.progress(device, upload, wait, requestId);
  }

  /** Deletes the device's upload and its bytes (tus termination). */
  public UploadTermination terminate(StoredUpload upload) {
    return terminate(upload, lockWait);
  }

  /** Deletes the upload and its bytes, waiting at most {@code wait} for an append to it. */
  private UploadTermination terminate(StoredUpload upload, Duration wait) {
    if (!store.holdsBytesOf(upload)) {
      return UploadTermination.ELSEWHERE;
    }
    // An append still storing bytes finishes first: its file must not vanish under it.
    Optional<Locker.Held> held = locker.tryLock(upload.id(), wait);
    if (held.isEmpty()) {
      return UploadTermination.BUSY;
    }
    try (Locker.Held lock = held.get()) {
      return store.terminate(upload.id());
    }
  }

  /**
   * Deletes this instance's expired uploads and their files ({@code BOLO_UPLOAD_TTL}).
   *
   * @return how many were deleted
   */
  public int sweep() {
    int swept = 0;
    for (StoredUpload upload : store.expired()) {
      // One an append is still storing into is left for the next sweep, as a termination is.
      if (terminate(upload, Duration.ZERO) == UploadTermination.DELETED) {
        completion.forgetOrphan(upload.id());
        swept++;
      }
    }
    if (swept > 0) {
      log.info("deleted {} expired uploads and their bytes", swept);
    }
    return swept;
  }

  /**
   * After a start: holds the spool budget for this instance's open uploads again, and keeps those a
   * previous run was transcribing when it stopped (killed, crashed) for the next request for their
   * answer, which transcribes them again from the spool; one whose bytes are gone ends 503 (the
   * phone sends the note again).
   */
  public void recover() {
    for (StoredUpload upload : store.live()) {
      switch (upload.state()) {
        case OPEN -> store.holdAgain(upload);
        case TRANSCRIBING -> completion.recover(upload);
        case DONE, FAILED -> {}
      }
    }
  }
}
