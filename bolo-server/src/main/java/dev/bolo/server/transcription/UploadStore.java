package dev.bolo.server.transcription;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.StoredUpload;
import dev.bolo.server.ledger.UploadRegistry;
import dev.bolo.server.upload.PartialNote;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This instance's resumable uploads, as tusd's data store keeps them: their records in the ledger
 * database ({@link UploadRegistry}, seen by every instance), their bytes in this instance's spool
 * folder, one file each, holding the {@link SpoolHolds} from creation until the file is deleted.
 * Creates, appends at an offset, reads a finished note, terminates. Knows nothing of locks: callers
 * hold the upload's {@link Locker} lock while they append to, finish or delete its bytes. Thread
 * safe.
 */
final class UploadStore {

  private static final Logger log = LoggerFactory.getLogger(UploadStore.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<Map<String, String>> FIELDS = new TypeReference<>() {};

  private final UploadRegistry registry;
  private final SpoolHolds budget;
  private final Path spoolDir;
  private final String instanceId;
  private final Clock clock;

  /**
   * The spool files appended to since this instance started, whose SHA-256 runs on across appends.
   * A note leaves once its upload's record says it ended, or when its bytes are deleted or lost.
   */
  private final ConcurrentHashMap<String, PartialNote> notes = new ConcurrentHashMap<>();

  /**
   * @param spoolDir this instance's folder for upload files (kept across restarts)
   * @param instanceId this instance's lasting id, recorded with every upload it takes
   */
  UploadStore(
      UploadRegistry registry, SpoolHolds budget, Path spoolDir, String instanceId, Clock clock) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.budget = Objects.requireNonNull(budget, "budget");
    this.spoolDir = Objects.requireNonNull(spoolDir, "spoolDir");
    this.instanceId = Objects.requireNonNull(instanceId, "instanceId");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** This instance's lasting id. */
  String instanceId() {
    return instanceId;
  }

  /** Whether this instance's spool holds the upload's bytes: only it may append or delete them. */
  boolean holdsBytesOf(StoredUpload upload) {
    return upload.instanceId().equals(instanceId);
  }

  /**
   * Adds the upload, holding its length of the spool budget, unless its device already has {@code
   * maxUnfinished} unfinished uploads or holds its share of the budget, or the budget is spent.
   */
  UploadCreation create(StoredUpload upload, int maxUnfinished) {
    switch (budget.hold(upload.device(), upload.id(), upload.length())) {
      case HELD -> {}
      case SPOOL_FULL -> {
        return new UploadCreation.SpoolFull();
      }
      case DEVICE_FULL -> {
        return new UploadCreation.DeviceFull(budget.maxPerDeviceBytes());
      }
    }
    boolean created = false;
    try {
      created = registry.create(upload, maxUnfinished);
    } finally {
      if (!created) {
        budget.release(upload.id());
      }
    }
    return created ? new UploadCreation.Created(upload) : new UploadCreation.TooMany(maxUnfinished);
  }

  /** The upload with this id, whoever owns it and whether or not it has expired. */
  Optional<StoredUpload> find(String id) {
    return registry.find(id);
  }

  /** The device's upload with this id, unless it expired; another device's is never found. */
  Optional<StoredUpload> find(Device device, String id) {
    Instant now = clock.instant();
    return registry
        .find(id)
        .filter(upload -> upload.device().equals(device.name()))
        .filter(upload -> upload.expiresAt().isAfter(now));
  }

  /** Open uploads of the device that have not expired, the oldest first. */
  List<StoredUpload> open(Device device) {
    return registry.open(device.name(), clock.instant());
  }

  /** This instance's uploads that have expired. */
  List<StoredUpload> expired() {
    return registry.expired(instanceId, clock.instant());
  }

  /** This instance's uploads that have not expired, in any state. */
  List<StoredUpload> live() {
    return registry.live(instanceId, clock.instant());
  }

  /** The settings an upload is created with, as its record keeps them. */
  static String fieldsJson(Map<String, String> fields) {
    try {
      return JSON.writeValueAsString(fields);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a map of strings is always written", e);
    }
  }

  /** The settings an upload was created with, by form field name. */
  static Map<String, String> fieldsOf(StoredUpload upload) {
    try {
      return JSON.readValue(upload.fields(), FIELDS);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("stored fields of upload " + upload.id(), e);
    }
  }

  /**
   * How many of the bytes the open upload's record claims its spool file still holds: fewer when
   * the disk lost some under the gateway (a spool folder wiped or restored from an older copy).
   */
  long kept(StoredUpload open) throws IOException {
    return PartialNote.kept(fileOf(open.id()), open.offset());
  }

  /**
   * The bytes of an open upload, to append to at its recorded offset: bytes past it (an append the
   * gateway stopped before recording it) are cut off.
   *
   * @throws PartialNote.SpoolCorrupted when the file holds fewer bytes than recorded
   */
  PartialNote bytesOf(StoredUpload open) throws IOException {
    PartialNote note = notes.get(open.id());
    if (note == null) {
      note = PartialNote.open(fileOf(open.id()), open.offset());
      notes.put(open.id(), note);
    }
    if (note.offset() > open.offset()) {
      note.cutBack(open.offset());
    }
    return note;
  }

  /**
   * Moves the open upload's recorded offset from where {@code current} has it to {@code reached}.
   *
   * @return false when another append moved it first, or the upload is gone
   */
  boolean advance(StoredUpload current, long reached) {
    return registry.advance(current.id(), current.offset(), reached, current.length());
  }

  /**
   * The spool file of an open upload holds fewer bytes than recorded: the disk lost them under the
   * gateway. The caller holds its lock. The record is moved back to what is still there (0 when the
   * file is gone) and the client is told that offset, as for any append at the wrong offset (409
   * with {@code Upload-Offset}): a tus client asks again and resends from there, and nothing
   * already recorded is claimed.
   */
  UploadAppend rewind(Device device, StoredUpload upload, long kept) {
    forget(upload.id());
    log.warn(
        "upload {}: its spool file holds {} of the {} bytes recorded (lost from the disk); the"
            + " client is told to resend from {}",
        upload.id(),
        kept,
        upload.offset(),
        kept);
    if (advance(upload, kept)) {
      return new UploadAppend.WrongOffset(kept);
    }
    // Another append moved it meanwhile: what the record says now.
    return find(device, upload.id())
        .<UploadAppend>map(now -> new UploadAppend.WrongOffset(now.offset()))
        .orElseGet(UploadAppend.Gone::new);
  }

  /**
   * Forgets what this instance knew of the upload's bytes (its note and running hash): they were
   * lost from the disk, or went to the note's transcription.
   */
  void forget(String id) {
    notes.remove(id);
  }

  /**
   * Reads the finished upload's bytes as a note: the note owns the file, deleted (and its budget
   * given back) when its last holder closes it. Bytes that are no note are deleted at once.
   */
  PartialNote.Finished read(StoredUpload upload, PartialNote note) throws IOException {
    PartialNote.Finished finished = note.finish(() -> budget.release(upload.id()));
    if (finished instanceof PartialNote.Finished.Unusable) {
      note.delete();
      budget.release(upload.id());
    }
    return finished;
  }

  /**
   * Reads the note of an upload that was being transcribed when an earlier run of this instance
   * stopped, from its spool file; the record wins over bytes past its offset.
   */
  PartialNote.Finished readAgain(StoredUpload upload) throws IOException {
    PartialNote note = PartialNote.open(fileOf(upload.id()), upload.offset());
    if (note.offset() > upload.offset()) {
      note.cutBack(upload.offset());
    }
    return read(upload, note);
  }

  /** Marks the upload whose last byte arrived as being transcribed, with the server's hash. */
  boolean startTranscription(String id, String audioSha256) {
    return registry.startTranscription(id, audioSha256);
  }

  /** Records how the upload ended. */
  void record(String id, UploadEnding ending) {
    registry.finish(id, EndingCodec.stateOf(ending), EndingCodec.encode(ending));
  }

  /**
   * Deletes the upload's record and, while it is open, its bytes. Once its last byte arrived the
   * file belongs to the note being transcribed, which deletes it. The caller holds its lock.
   */
  UploadTermination terminate(String id) {
    // Read again: the append that held the lock may have ended the upload.
    Optional<StoredUpload> fresh = registry.find(id);
    if (fresh.isEmpty() || !registry.delete(id)) {
      return UploadTermination.GONE;
    }
    PartialNote note = notes.remove(id);
    if (fresh.get().state() == StoredUpload.State.OPEN) {
      try {
        if (note != null) {
          note.delete();
        } else {
          Files.deleteIfExists(fileOf(id));
        }
      } catch (IOException e) {
        log.warn("could not delete the bytes of upload {}: {}", id, e.toString());
      }
      budget.release(id);
    }
    return UploadTermination.DELETED;
  }

  /** Whether the spool still has a file for the upload. */
  boolean hasFile(StoredUpload upload) {
    return Files.isRegularFile(fileOf(upload.id()));
  }

  /** Holds the budget again for an upload this instance took before a restart. */
  void holdAgain(StoredUpload upload) {
    if (budget.hold(upload.device(), upload.id(), upload.length()) != SpoolHolds.Hold.HELD) {
      log.warn(
          "upload {} of {} bytes is past the spool budget after the restart; kept anyway",
          upload.id(),
          upload.length());
    }
  }

  /** Deletes the upload's spool file (not its record) and gives back its budget. */
  void dropFile(String id) {
    try {
      Files.deleteIfExists(fileOf(id));
    } catch (IOException e) {
      log.warn("could not delete the bytes of upload {}: {}", id, e.toString());
    }
    budget.release(id);
  }

  private Path fileOf(String id) {
    return spoolDir.resolve(id + ".part");
  }
}
