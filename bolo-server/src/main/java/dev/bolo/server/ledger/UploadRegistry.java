package dev.bolo.server.ledger;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The state of resumable uploads, kept in the ledger database so that it survives a restart and is
 * seen by every instance sharing the database. Offsets move by compare-and-set, so two appends can
 * never both claim the same bytes. Thread safe.
 */
public interface UploadRegistry {

  /**
   * Adds a new upload unless its device already has {@code maxUnfinished} unfinished ones (open or
   * transcribing, not expired at the upload's creation): the count and the insert are one
   * transaction that creations of the same device take in turn, on every instance sharing the
   * database.
   *
   * @return false when the device is at its bound; nothing was added
   * @throws LedgerException when the database cannot be used
   */
  boolean create(StoredUpload upload, int maxUnfinished);

  /** The upload with this id, whoever owns it and whether or not it has expired. */
  Optional<StoredUpload> find(String id);

  /** Uploads of {@code device} not yet finished (open or transcribing) that expire after now. */
  int countUnfinished(String device, Instant now);

  /** Open uploads of {@code device} that expire after now, the oldest first. */
  List<StoredUpload> open(String device, Instant now);

  /**
   * Moves an open upload's offset from {@code expectedOffset} to {@code newOffset} (and sets its
   * length, which the IETF draft may tell late).
   *
   * @return false when the stored offset was not {@code expectedOffset} or the upload is gone
   */
  boolean advance(String id, long expectedOffset, long newOffset, long length);

  /**
   * Marks an open upload whose last byte arrived as being transcribed, with the server's hash.
   *
   * @return false when it was not open any more
   */
  boolean startTranscription(String id, String audioSha256);

  /** Records how a finished upload ended. */
  void finish(String id, StoredUpload.State state, String outcome);

  /** Removes an upload's row; true when there was one. */
  boolean delete(String id);

  /** Uploads of {@code instanceId} that expired before {@code now}. */
  List<StoredUpload> expired(String instanceId, Instant now);

  /** Uploads of {@code instanceId} that have not expired, in any state. */
  List<StoredUpload> live(String instanceId, Instant now);
}
