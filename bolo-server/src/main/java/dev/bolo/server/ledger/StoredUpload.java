package dev.bolo.server.ledger;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One resumable upload as the ledger database keeps it.
 *
 * @param id unguessable, as it appears in the upload's URL
 * @param device the device that created it; no other device may see it
 * @param instanceId the gateway instance whose spool holds its bytes
 * @param protocol {@code tus} or {@code ietf}
 * @param length the note's length in bytes, which both protocols require at creation
 * @param offset bytes stored so far
 * @param fields the note's settings as a JSON object of form field names to values
 * @param declaredSha256 the client's claimed SHA-256 of the whole note, checked at the end
 * @param idempotencyKey the client's {@code Idempotency-Key}, meaning what it means on the POST
 * @param state where the upload is in its life
 * @param audioSha256 the server's own hash once the last byte arrived
 * @param outcome how a finished upload ended, as JSON; null until it has
 */
public record StoredUpload(
    String id,
    String device,
    String instanceId,
    String protocol,
    long length,
    long offset,
    String fields,
    @Nullable String declaredSha256,
    @Nullable String idempotencyKey,
    State state,
    @Nullable String audioSha256,
    @Nullable String outcome,
    Instant createdAt,
    Instant expiresAt) {

  public StoredUpload {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(device, "device");
    Objects.requireNonNull(instanceId, "instanceId");
    Objects.requireNonNull(protocol, "protocol");
    Objects.requireNonNull(fields, "fields");
    Objects.requireNonNull(state, "state");
    if (length < -1 || offset < 0 || (length >= 0 && offset > length)) {
      throw new IllegalArgumentException(
          "offset must be within 0..length: offset=" + offset + ", length=" + length);
    }
  }

  /** Where an upload is in its life. */
  public enum State {
    /** Bytes are still arriving. */
    OPEN,
    /** The last byte arrived; the note is being transcribed. */
    TRANSCRIBING,
    /** Transcribed; the transcript is in the replay store. */
    DONE,
    /** Ended without a transcript; {@link #outcome()} says why. */
    FAILED
  }

  /** Whether the client has said how long the note is. */
  public boolean hasLength() {
    return length >= 0;
  }

  /** This upload with {@code newOffset} bytes stored. */
  public StoredUpload withOffset(long newOffset, long newLength) {
    return new StoredUpload(
        id,
        device,
        instanceId,
        protocol,
        newLength,
        newOffset,
        fields,
        declaredSha256,
        idempotencyKey,
        state,
        audioSha256,
        outcome,
        createdAt,
        expiresAt);
  }
}
