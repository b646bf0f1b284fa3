package dev.bolo.server.transcription;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bolo.server.audio.PartialNote;
import dev.bolo.server.audio.SpooledAudio;
import dev.bolo.server.audio.UploadReader;
import dev.bolo.server.audio.UploadResult;
import dev.bolo.server.engine.InvalidSettingException;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.engine.Task;
import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.StoredUpload;
import dev.bolo.server.ledger.UploadRegistry;
import dev.bolo.server.work.Outcome;
import dev.bolo.server.work.Problem;
import dev.bolo.server.work.Transcript;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
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
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resumable uploads of notes (tus 1.0 and the IETF draft share this one store): created by a
 * device, appended to across connections and restarts, and transcribed exactly like a POST once the
 * last byte arrived. The state lives in the ledger database ({@link UploadRegistry}); the bytes in
 * this instance's spool, which alone may append to them. Knows nothing of HTTP. Thread safe.
 */
public final class ResumableUploads {

  private static final Logger log = LoggerFactory.getLogger(ResumableUploads.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final SecureRandom IDS = new SecureRandom();

  /** How often a wait for work run elsewhere reads the upload's record again. */
  private static final Duration RECHECK = Duration.ofMillis(250);

  /** The protocol an upload was created with; its appends speak the same one. */
  public enum Protocol {
    TUS,
    IETF;

    String stored() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final UploadRegistry registry;
  private final UploadReader reader;
  private final Transcriber transcriber;
  private final NoteLookup lookups;
  private final NoteSettings noteSettings;
  private final Path spoolDir;
  private final String instanceId;
  private final Clock clock;
  private final Duration ttl;
  private final int maxUnfinishedPerDevice;
  private final Duration lockWait;
  private final Executor work;
  private final ConcurrentHashMap<String, PartialNote> notes = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, CompletableFuture<Ending>> running =
      new ConcurrentHashMap<>();

  /**
   * Uploads of this instance whose note an earlier run was transcribing when it stopped (killed,
   * crashed): their bytes are still in the spool, and the next request for the answer runs the work
   * again. Guarded by itself for taking one out and starting its run.
   */
  private final java.util.Set<String> orphans = ConcurrentHashMap.newKeySet();

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
      Duration ttl,
      int maxUnfinishedPerDevice,
      Duration lockWait,
      Executor work) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.reader = Objects.requireNonNull(reader, "reader");
    this.transcriber = Objects.requireNonNull(transcriber, "transcriber");
    this.lookups = transcriber.lookups();
    this.noteSettings = transcriber.noteSettings();
    this.spoolDir = Objects.requireNonNull(spoolDir, "spoolDir");
    this.instanceId = Objects.requireNonNull(instanceId, "instanceId");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.ttl = Objects.requireNonNull(ttl, "ttl");
    if (maxUnfinishedPerDevice < 1) {
      throw new IllegalArgumentException(
          "maxUnfinishedPerDevice must be >= 1: " + maxUnfinishedPerDevice);
    }
    this.maxUnfinishedPerDevice = maxUnfinishedPerDevice;
    this.lockWait = Objects.requireNonNull(lockWait, "lockWait");
    this.work = Objects.requireNonNull(work, "work");
  }

  /** The largest note, in bytes ({@code BOLO_MAX_UPLOAD_BYTES}). */
  public long maxBytes() {
    return reader.maxAudioBytes();
  }

  /** How an upload ended once its last byte arrived. */
  public sealed interface Ending {

    /** Transcribed, or replayed from earlier work. */
    record Transcribed(Transcript transcript, boolean replayed) implements Ending {}

    /** The work was refused (quota, engine, ...), exactly as a POST would be. */
    record Refused(Outcome.Refused refused) implements Ending {}

    /** The bytes are no note Bolo takes: empty, not audio, or contradictory headers. */
    record Unusable(UploadResult.Invalid why) implements Ending {}

    /** The server's hash contradicts the {@code sha256} the client declared. */
    record HashMismatch(String declared, String computed) implements Ending {}
  }

  /** The answer to a creation. */
  public sealed interface Creation {
    record Created(StoredUpload upload) implements Creation {}

    /** The device already has this many unfinished uploads. */
    record TooMany(int max) implements Creation {}

    /** Holding the upload's bytes would pass the spool budget. */
    record SpoolFull() implements Creation {}

    /** The note's settings are none a POST could have: nothing was created. */
    record Refused(NoteRefusal refusal) implements Creation {}
  }

  /**
   * Creates an upload of {@code length} bytes (-1: not known yet, IETF only), holding that much of
   * the spool budget until it ends. Its settings are checked now, as a POST's are.
   *
   * @param fields the note's settings by form field name, kept with the upload
   */
  public Creation create(
      Device device,
      Protocol protocol,
      long length,
      Map<String, String> fields,
      @Nullable String declaredSha256,
      @Nullable String idempotencyKey) {
    try {
      noteSettings.offered(Task.TRANSCRIBE, SettingFields.of(fields));
    } catch (InvalidSettingException e) {
      return new Creation.Refused(NoteSettings.refusalOf(e));
    }
    Instant now = clock.instant();
    long held = spoolHoldOf(length);
    byte[] random = new byte[16];
    IDS.nextBytes(random);
    StoredUpload upload =
        new StoredUpload(
            HexFormat.of().formatHex(random),
            device.name(),
            instanceId,
            protocol.stored(),
            length,
            0,
            JSON.valueToTree(fields).toString(),
            declaredSha256 == null ? null : declaredSha256.toLowerCase(Locale.ROOT),
            idempotencyKey,
            StoredUpload.State.OPEN,
            null,
            null,
            now,
            now.plus(ttl));
    for (boolean madeRoom = false; ; madeRoom = true) {
      if (!reader.holdSpool(held)) {
        return new Creation.SpoolFull();
      }
      boolean created = false;
      try {
        // A hostile or broken client must not pile up open uploads, each holding spool: the bound
        // is checked in the same transaction that adds the upload, so concurrent creations (on any
        // instance) cannot pass it together.
        created = registry.create(upload, maxUnfinishedPerDevice);
      } finally {
        if (!created) {
          reader.releaseSpool(held);
        }
      }
      if (created) {
        return new Creation.Created(upload);
      }
      if (madeRoom || !dropOldestIdle(device, now)) {
        return new Creation.TooMany(maxUnfinishedPerDevice);
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
  private boolean dropOldestIdle(Device device, Instant now) {
    for (StoredUpload upload : registry.open(device.name(), now)) {
      // Not waiting: an upload that an append holds is in use, the next oldest may not be.
      if (terminate(upload, Duration.ZERO) == Termination.DELETED) {
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

  private long spoolHoldOf(long length) {
    return length >= 0 ? length : reader.maxAudioBytes();
  }

  /** The device's upload with this id, unless it expired; another device's is never found. */
  public Optional<StoredUpload> find(Device device, String id) {
    Instant now = clock.instant();
    return registry
        .find(id)
        .filter(upload -> upload.device().equals(device.name()))
        .filter(upload -> upload.expiresAt().isAfter(now));
  }

  /**
   * The upload once no append to it is arriving here, for a client asking where to resume: an
   * append whose connection just broke may still be storing what arrived, and an offset read before
   * it ends sends the client back too far (its next append is then refused as 409 after it has sent
   * its whole body again). Empty while an append still holds it after the lock wait.
   */
  public Optional<StoredUpload> settled(Device device, StoredUpload upload) {
    PartialNote note = notes.get(upload.id());
    if (note == null || !upload.instanceId().equals(instanceId)) {
      return Optional.of(upload);
    }
    if (!note.tryLock(lockWait)) {
      return Optional.empty();
    }
    try {
      return Optional.of(find(device, upload.id()).orElse(upload));
    } finally {
      note.unlock();
    }
  }

  /**
   * The canonical settings an upload was created with. They were checked then; the model stays the
   * one asked for even if it is no longer offered, as for a POST that was already accepted.
   */
  private Settings settingsOf(StoredUpload upload) {
    return noteSettings.of(Task.TRANSCRIBE, SettingFields.of(fieldsOf(upload)));
  }

  /**
   * The note of an upload whose last byte arrived, as a POST of it would be: its length is the
   * server's measurement or estimate, never a claim.
   */
  private Transcriber.Note noteOf(
      Device device, StoredUpload upload, SpooledAudio audio, String requestId) {
    return new Transcriber.Note(
        device,
        audio,
        settingsOf(upload),
        OptionalLong.empty(),
        upload.idempotencyKey(),
        requestId);
  }

  /** The settings an upload was created with, by form field name. */
  private static Map<String, String> fieldsOf(StoredUpload upload) {
    try {
      JsonNode node = JSON.readTree(upload.fields());
      Map<String, String> fields = new java.util.LinkedHashMap<>();
      node.properties().forEach(e -> fields.put(e.getKey(), e.getValue().asText()));
      return fields;
    } catch (IOException e) {
      throw new UncheckedIOException("stored fields of upload " + upload.id(), e);
    }
  }

  /** The answer to an append. */
  public sealed interface Append {

    /**
     * Stored; {@code ending} is set when this append brought the last byte, and completes once the
     * note is transcribed (or refused).
     */
    record Appended(StoredUpload upload, @Nullable CompletableFuture<Ending> ending)
        implements Append {}

    /** Stored up to where the body broke off or was too slow; resume from the upload's offset. */
    record Interrupted(StoredUpload upload, UploadResult.Invalid why) implements Append {}

    /** The client's offset is not the stored one. */
    record WrongOffset(long offset) implements Append {}

    /** The body would pass the upload's length; nothing of it was kept. */
    record Overrun(long length) implements Append {}

    /** The client ended the note at {@code reached} bytes, not at the length it announced. */
    record Inconsistent(long reached, long length) implements Append {}

    /** Another instance holds this upload's bytes. */
    record Elsewhere() implements Append {}

    /** Deleted or expired while this append waited for the one before it. */
    record Gone() implements Append {}

    /** An earlier append to this upload is still being read. */
    record Locked() implements Append {}

    /** Refused before reading (device or gateway busy). */
    record Refused(UploadResult.Invalid why) implements Append {}
  }

  /**
   * Appends a body at {@code offset}. When the last byte arrives (the offset reaches the length, or
   * {@code last} says the body ends the note), the note is checked and transcribed exactly like a
   * POST's, on a thread of its own: a client that goes away never cancels it.
   *
   * @param last the client says this body is the note's end (IETF {@code Upload-Complete: ?1})
   * @throws IOException when the spool cannot be used (the gateway's fault)
   */
  public Append append(
      Device device,
      StoredUpload upload,
      long offset,
      long contentLength,
      InputStream body,
      boolean last,
      String requestId)
      throws IOException {
    // Its bytes are in another instance's spool: appending here would make a note of a hole.
    if (!upload.instanceId().equals(instanceId)) {
      return new Append.Elsewhere();
    }
    // Its last byte has arrived: the bytes went to the transcription, nothing is left to append to.
    if (upload.state() != StoredUpload.State.OPEN) {
      return notAppendable(upload, offset, contentLength, last);
    }
    PartialNote note;
    try {
      note = noteOf(upload);
    } catch (PartialNote.SpoolCorrupted e) {
      // Or it arrived since the caller read the upload: a resent last append racing the first.
      Optional<StoredUpload> now = find(device, upload.id());
      if (now.isEmpty()) {
        return new Append.Gone();
      }
      if (now.get().state() != StoredUpload.State.OPEN) {
        return notAppendable(now.get(), offset, contentLength, last);
      }
      StoredUpload open = now.get();
      return bytesLost(device, open, PartialNote.kept(fileOf(open.id()), open.offset()), null);
    }
    if (!note.tryLock(lockWait)) {
      return new Append.Locked();
    }
    try {
      // Read again under the lock: an append that held it may have moved the offset.
      Optional<StoredUpload> fresh = find(device, upload.id());
      if (fresh.isEmpty()) {
        return new Append.Gone();
      }
      StoredUpload current = fresh.get();
      if (current.state() == StoredUpload.State.OPEN) {
        long kept = PartialNote.kept(fileOf(current.id()), current.offset());
        if (kept < current.offset()) {
          return bytesLost(device, current, kept, note);
        }
      }
      if (current.state() != StoredUpload.State.OPEN || offset != current.offset()) {
        return notAppendable(current, offset, contentLength, last);
      }
      if (note.offset() > current.offset()) {
        note.cutBack(current.offset());
      }
      long room = (current.hasLength() ? current.length() : reader.maxAudioBytes()) - offset;
      if (contentLength > room) {
        return new Append.Overrun(current.hasLength() ? current.length() : reader.maxAudioBytes());
      }
      UploadReader.AppendResult result =
          reader.append(device.name(), note, contentLength, room, body);
      if (result.overran()) {
        note.cutBack(offset);
        return new Append.Overrun(current.hasLength() ? current.length() : reader.maxAudioBytes());
      }
      long reached = offset + result.bytes();
      boolean complete =
          result.refusal() == null
              && (last || (current.hasLength() && reached == current.length()));
      long length = complete ? reached : current.length();
      if (current.hasLength() && complete && reached != current.length()) {
        // The client ended the note short of the length it announced.
        note.cutBack(offset);
        return new Append.Inconsistent(reached, current.length());
      }
      if (result.bytes() > 0 || length != current.length()) {
        if (!registry.advance(current.id(), offset, reached, length)) {
          note.cutBack(offset);
          return new Append.WrongOffset(offset);
        }
      }
      StoredUpload stored = current.withOffset(reached, length);
      UploadResult.@Nullable Invalid refusal = result.refusal();
      if (refusal != null) {
        return result.bytes() == 0
                && refusal.reason() != UploadResult.Reason.TOO_SLOW
                && refusal.reason() != UploadResult.Reason.MALFORMED
            ? new Append.Refused(refusal)
            : new Append.Interrupted(stored, refusal);
      }
      if (!complete) {
        return new Append.Appended(stored, null);
      }
      return new Append.Appended(stored, complete(device, stored, note, requestId));
    } finally {
      note.unlock();
    }
  }

  /**
   * An append to an upload that has ended, or at an offset that is not the stored one: an empty
   * body at the stored offset changes nothing and is answered as appended (a resent last append of
   * tus, whose first answer was lost); anything else is told the stored offset.
   */
  private static Append notAppendable(
      StoredUpload upload, long offset, long contentLength, boolean last) {
    boolean nothingNew = offset == upload.offset() && contentLength == 0 && !last;
    return nothingNew ? new Append.Appended(upload, null) : new Append.WrongOffset(upload.offset());
  }

  /**
   * The spool file of an open upload holds fewer bytes than recorded: the disk lost them under the
   * gateway. The record is moved back to what is still there (0 when the file is gone) and the
   * client is told that offset, as for any append at the wrong offset (409 with {@code
   * Upload-Offset}): a tus client asks again and resends from there, and nothing already recorded
   * is claimed.
   */
  private Append bytesLost(
      Device device, StoredUpload upload, long kept, @Nullable PartialNote locked)
      throws IOException {
    if (locked != null) {
      // The note stays the one every append to this upload locks: a second one would let two
      // appends write at once.
      locked.resetTo(kept);
    }
    log.warn(
        "upload {}: its spool file holds {} of the {} bytes recorded (lost from the disk); the"
            + " client is told to resend from {}",
        upload.id(),
        kept,
        upload.offset(),
        kept);
    if (registry.advance(upload.id(), upload.offset(), kept, upload.length())) {
      return new Append.WrongOffset(kept);
    }
    // Another append moved it meanwhile: what the record says now.
    return find(device, upload.id())
        .<Append>map(now -> new Append.WrongOffset(now.offset()))
        .orElseGet(Append.Gone::new);
  }

  private PartialNote noteOf(StoredUpload upload) throws IOException {
    PartialNote known = notes.get(upload.id());
    if (known != null) {
      return known;
    }
    PartialNote opened = PartialNote.open(fileOf(upload.id()), upload.offset());
    PartialNote raced = notes.putIfAbsent(upload.id(), opened);
    return raced != null ? raced : opened;
  }

  private Path fileOf(String id) {
    return spoolDir.resolve(id + ".part");
  }

  /**
   * Ends the upload whose last byte arrived: check, then transcribe as a POST does. The note leaves
   * {@link #notes} only once the record says how the upload ended: until then a late append must
   * find this note and wait for its lock, then read that record, never open the file anew.
   */
  private CompletableFuture<Ending> complete(
      Device device, StoredUpload upload, PartialNote note, String requestId) throws IOException {
    try {
      return completeRecorded(device, upload, note, requestId);
    } finally {
      notes.remove(upload.id());
    }
  }

  private CompletableFuture<Ending> completeRecorded(
      Device device, StoredUpload upload, PartialNote note, String requestId) throws IOException {
    long held = spoolHoldOf(upload.length() >= 0 ? upload.length() : -1);
    PartialNote.Finished finished = note.finish(() -> reader.releaseSpool(held));
    SpooledAudio audio;
    switch (finished) {
      case PartialNote.Finished.Refused refused -> {
        note.delete();
        reader.releaseSpool(held);
        return CompletableFuture.completedFuture(
            record(upload.id(), new Ending.Unusable(refused.why())));
      }
      case PartialNote.Finished.Note ready -> audio = ready.audio();
    }
    String declared = upload.declaredSha256();
    if (declared != null && !declared.equals(audio.sha256())) {
      audio.close();
      return CompletableFuture.completedFuture(
          record(upload.id(), new Ending.HashMismatch(declared, audio.sha256())));
    }
    registry.startTranscription(upload.id(), audio.sha256());
    CompletableFuture<Ending> ending = new CompletableFuture<>();
    running.put(upload.id(), ending);
    Transcriber.Note call = noteOf(device, upload, audio, requestId);
    try {
      work.execute(() -> transcribe(upload.id(), call, ending));
    } catch (RuntimeException rejected) {
      audio.close();
      running.remove(upload.id());
      throw rejected;
    }
    return ending;
  }

  private void transcribe(String id, Transcriber.Note call, CompletableFuture<Ending> ending) {
    Ending ended;
    try (SpooledAudio audio = call.audio()) {
      Transcriber.Answer answer = transcriber.transcribe(call);
      ended =
          switch (answer.outcome()) {
            case Outcome.Success success ->
                new Ending.Transcribed(success.transcript(), answer.replayed());
            case Outcome.Refused refused -> new Ending.Refused(refused);
          };
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      ended =
          new Ending.Refused(
              new Outcome.Refused(
                  Problem.SERVER_UNAVAILABLE, "the gateway stopped while transcribing; resend"));
    } catch (RuntimeException | Error bug) {
      log.error("transcribing upload {} failed", id, bug);
      ended =
          new Ending.Refused(
              new Outcome.Refused(
                  Problem.INTERNAL, "internal error; the note was not transcribed"));
    }
    end(id, ending, ended);
  }

  private Ending record(String id, Ending ending) {
    ObjectNode json = JSON.createObjectNode();
    StoredUpload.State state;
    switch (ending) {
      case Ending.Transcribed t -> {
        json.put("kind", "transcribed").put("replayed", t.replayed());
        state = StoredUpload.State.DONE;
      }
      case Ending.Refused r -> {
        json.put("kind", "refused")
            .put("problem", r.refused().problem().name())
            .put("message", r.refused().message());
        Duration retryAfter = r.refused().retryAfter();
        if (retryAfter != null) {
          json.put("retry_after_ms", retryAfter.toMillis());
        }
        state = StoredUpload.State.FAILED;
      }
      case Ending.Unusable u -> {
        json.put("kind", "unusable")
            .put("reason", u.why().reason().name())
            .put("message", u.why().message());
        state = StoredUpload.State.FAILED;
      }
      case Ending.HashMismatch h -> {
        json.put("kind", "hash_mismatch")
            .put("declared", h.declared())
            .put("computed", h.computed());
        state = StoredUpload.State.FAILED;
      }
    }
    registry.finish(id, state, json.toString());
    return ending;
  }

  /** How far an upload's transcription is. */
  public sealed interface Progress {
    /** Bytes are still missing. */
    record Incomplete() implements Progress {}

    /** The note is being transcribed. */
    record Running() implements Progress {}

    /** It ended so. */
    record Ended(Ending ending) implements Progress {}

    /** Transcribed, but the replay store no longer holds the transcript. */
    record Gone() implements Progress {}
  }

  /**
   * Where the upload's transcription is, waiting up to {@code wait} for running work. The note of
   * an upload whose transcription died with an earlier run of this instance is transcribed again
   * (or joined to the work a copy of it runs), from the bytes still in the spool.
   *
   * @param requestId the asking request's id, for the work run again on its behalf
   * @throws InterruptedException if the request thread is interrupted; the work goes on
   */
  public Progress transcription(Device device, StoredUpload upload, Duration wait, String requestId)
      throws InterruptedException {
    Settings settings = settingsOf(upload);
    return switch (upload.state()) {
      case OPEN -> new Progress.Incomplete();
      case TRANSCRIBING -> {
        if (orphans.contains(upload.id())) {
          runAgain(device, upload, requestId);
        }
        yield awaitRunning(device, upload, settings, wait, requestId);
      }
      case DONE -> {
        JsonNode outcome = outcomeOf(upload);
        String sha = Objects.requireNonNull(upload.audioSha256(), "hash of a finished upload");
        yield lookups
            .stored(device, settings, sha, Duration.ZERO)
            .<Progress>map(
                t ->
                    new Progress.Ended(
                        new Ending.Transcribed(t, outcome.path("replayed").asBoolean(false))))
            .orElseGet(Progress.Gone::new);
      }
      case FAILED -> new Progress.Ended(endingOf(outcomeOf(upload)));
    };
  }

  private Progress awaitRunning(
      Device device, StoredUpload upload, Settings settings, Duration wait, String requestId)
      throws InterruptedException {
    CompletableFuture<Ending> local = running.get(upload.id());
    if (local != null) {
      try {
        return new Progress.Ended(local.get(wait.toMillis(), TimeUnit.MILLISECONDS));
      } catch (TimeoutException e) {
        return new Progress.Running();
      } catch (ExecutionException e) {
        throw new IllegalStateException("an upload's ending never fails", e);
      }
    }
    // Transcribed on another instance, or just finished here: the record and the store know. The
    // store waits for work it sees running; work not claimed yet (the holder has only just queued
    // it) is vacant there, so the record is read again until the wait is over.
    String sha = Objects.requireNonNull(upload.audioSha256(), "hash of a transcribing upload");
    long deadline = System.nanoTime() + wait.toNanos();
    while (true) {
      Optional<StoredUpload> now = find(device, upload.id());
      if (now.isPresent() && now.get().state() != StoredUpload.State.TRANSCRIBING) {
        return transcription(device, now.get(), Duration.ZERO, requestId);
      }
      long left = Math.max(0, deadline - System.nanoTime());
      Optional<Transcript> stored = lookups.stored(device, settings, sha, Duration.ofNanos(left));
      if (stored.isPresent()) {
        return new Progress.Ended(new Ending.Transcribed(stored.get(), false));
      }
      left = deadline - System.nanoTime();
      if (left <= 0) {
        return new Progress.Running();
      }
      Thread.sleep(Math.min(TimeUnit.NANOSECONDS.toMillis(left) + 1, RECHECK.toMillis()));
    }
  }

  private static JsonNode outcomeOf(StoredUpload upload) {
    String outcome = Objects.requireNonNull(upload.outcome(), "outcome of a finished upload");
    try {
      return JSON.readTree(outcome);
    } catch (IOException e) {
      throw new UncheckedIOException("stored outcome of upload " + upload.id(), e);
    }
  }

  private static Ending endingOf(JsonNode json) {
    String message = json.path("message").asText("");
    return switch (json.path("kind").asText()) {
      case "refused" ->
          new Ending.Refused(
              new Outcome.Refused(
                  Problem.valueOf(json.path("problem").asText()),
                  message,
                  json.has("retry_after_ms")
                      ? Duration.ofMillis(json.path("retry_after_ms").asLong())
                      : null));
      case "unusable" ->
          new Ending.Unusable(
              new UploadResult.Invalid(
                  UploadResult.Reason.valueOf(json.path("reason").asText()), message));
      case "hash_mismatch" ->
          new Ending.HashMismatch(json.path("declared").asText(), json.path("computed").asText());
      default -> throw new IllegalStateException("unknown stored outcome: " + json);
    };
  }

  /**
   * Runs the transcription of an orphaned upload again, once however many requests ask at the same
   * time: from the spool file, which must still hash to what the first run computed. The work key
   * is the same as the first run's, so a copy of the note running elsewhere is joined and a
   * transcript already stored is replayed; the device is charged at most once.
   */
  private void runAgain(Device device, StoredUpload upload, String requestId) {
    CompletableFuture<Ending> ending = new CompletableFuture<>();
    synchronized (orphans) {
      if (!orphans.remove(upload.id())) {
        return;
      }
      running.put(upload.id(), ending);
    }
    String id = upload.id();
    long held = spoolHoldOf(upload.length());
    SpooledAudio audio;
    try {
      PartialNote note = PartialNote.open(fileOf(id), upload.offset());
      if (note.offset() > upload.offset()) {
        // The record wins: bytes past it are not the note's.
        note.cutBack(upload.offset());
      }
      switch (note.finish(() -> reader.releaseSpool(held))) {
        case PartialNote.Finished.Refused refused -> {
          note.delete();
          reader.releaseSpool(held);
          end(id, ending, new Ending.Unusable(refused.why()));
          return;
        }
        case PartialNote.Finished.Note ready -> audio = ready.audio();
      }
    } catch (IOException | RuntimeException e) {
      log.warn("cannot transcribe upload {} again from the spool: {}", id, e.toString());
      dropFile(id, held);
      end(id, ending, lost());
      return;
    }
    if (!audio.sha256().equals(upload.audioSha256())) {
      log.warn("the spool file of upload {} changed across the restart; not transcribed", id);
      audio.close();
      end(id, ending, lost());
      return;
    }
    log.info("transcribing upload {} again: an earlier run stopped while transcribing it", id);
    Transcriber.Note call = noteOf(device, upload, audio, requestId);
    try {
      work.execute(() -> transcribe(id, call, ending));
    } catch (RuntimeException rejected) {
      audio.close();
      end(id, ending, lost());
    }
  }

  private static Ending lost() {
    return new Ending.Refused(
        new Outcome.Refused(
            Problem.SERVER_UNAVAILABLE,
            "the gateway restarted while transcribing this note and lost its bytes; send it"
                + " again"));
  }

  /** Records how an upload's transcription ended, and answers whoever waits for it. */
  private void end(String id, CompletableFuture<Ending> ending, Ending ended) {
    try {
      record(id, ended);
    } catch (RuntimeException e) {
      log.warn("could not record how upload {} ended: {}", id, e.toString());
    } finally {
      ending.complete(ended);
      running.remove(id, ending);
    }
  }

  private void dropFile(String id, long held) {
    try {
      if (java.nio.file.Files.deleteIfExists(fileOf(id))) {
        reader.releaseSpool(held);
      }
    } catch (IOException e) {
      log.warn("could not delete the bytes of upload {}: {}", id, e.toString());
    }
  }

  /** How a termination ended. */
  public enum Termination {
    DELETED,
    /** Another instance holds the bytes; only it may delete them. */
    ELSEWHERE,
    /** Already gone. */
    GONE,
    /** An append to it is still arriving. */
    BUSY
  }

  /** Deletes the device's upload and its bytes (tus termination). */
  public Termination terminate(StoredUpload upload) {
    return terminate(upload, lockWait);
  }

  /** Deletes the upload and its bytes, waiting at most {@code wait} for an append to it. */
  private Termination terminate(StoredUpload upload, Duration wait) {
    if (!upload.instanceId().equals(instanceId)) {
      return Termination.ELSEWHERE;
    }
    // An append still storing bytes finishes first: its file must not vanish under it.
    PartialNote note = notes.get(upload.id());
    if (note != null && !note.tryLock(wait)) {
      return Termination.BUSY;
    }
    try {
      // Read again under the lock: the append that held it may have ended the upload, whose file
      // then belongs to its transcription.
      Optional<StoredUpload> fresh = registry.find(upload.id());
      if (fresh.isEmpty() || !registry.delete(upload.id())) {
        return Termination.GONE;
      }
      dropBytes(fresh.get());
      return Termination.DELETED;
    } finally {
      if (note != null) {
        note.unlock();
      }
    }
  }

  private void dropBytes(StoredUpload upload) {
    PartialNote note = notes.remove(upload.id());
    // Once the last byte arrived the file belongs to the note being transcribed, which deletes it.
    if (upload.state() != StoredUpload.State.OPEN) {
      return;
    }
    try {
      if (note != null) {
        note.delete();
      } else {
        java.nio.file.Files.deleteIfExists(fileOf(upload.id()));
      }
    } catch (IOException e) {
      log.warn("could not delete the bytes of upload {}: {}", upload.id(), e.toString());
    }
    reader.releaseSpool(spoolHoldOf(upload.length()));
  }

  /**
   * Deletes this instance's expired uploads and their files ({@code BOLO_UPLOAD_TTL}).
   *
   * @return how many were deleted
   */
  public int sweep() {
    int swept = 0;
    for (StoredUpload upload : registry.expired(instanceId, clock.instant())) {
      // One an append is still storing into is left for the next sweep, as a termination is.
      if (terminate(upload, Duration.ZERO) == Termination.DELETED) {
        // The bytes of an orphan nobody asked for again are its own to delete.
        if (orphans.remove(upload.id())) {
          dropFile(upload.id(), spoolHoldOf(upload.length()));
        }
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
    for (StoredUpload upload : registry.live(instanceId, clock.instant())) {
      switch (upload.state()) {
        case OPEN -> reader.holdSpool(spoolHoldOf(upload.length()));
        case TRANSCRIBING -> {
          if (java.nio.file.Files.isRegularFile(fileOf(upload.id()))) {
            reader.holdSpool(spoolHoldOf(upload.length()));
            orphans.add(upload.id());
          } else {
            record(upload.id(), lost());
          }
        }
        case DONE, FAILED -> {}
      }
    }
  }
}
