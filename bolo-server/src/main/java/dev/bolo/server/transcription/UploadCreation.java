package dev.bolo.server.transcription;

import dev.bolo.server.ledger.StoredUpload;

/** The answer to the creation of a resumable upload. */
public sealed interface UploadCreation {

  /** Created, holding its length of the spool budget until it ends. */
  record Created(StoredUpload upload) implements UploadCreation {}

  /** The device already has this many unfinished uploads, all still receiving bytes. */
  record TooMany(int max) implements UploadCreation {}

  /**
   * The device's unfinished uploads would hold more than {@code maxBytes} of the spool together,
   * and all of them are still receiving bytes.
   */
  record DeviceFull(long maxBytes) implements UploadCreation {}

  /** Holding the upload's bytes would pass the spool budget. */
  record SpoolFull() implements UploadCreation {}

  /** The note's settings are none a POST could have: nothing was created. */
  record Refused(NoteRefusal refusal) implements UploadCreation {}
}
