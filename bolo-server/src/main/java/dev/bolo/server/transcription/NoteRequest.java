package dev.bolo.server.transcription;

import dev.bolo.server.ledger.Device;
import dev.bolo.server.upload.SpooledAudio;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * One upload of a note as a handler read it, before the use case checked its settings and its hash;
 * {@link Intake#accept} makes a {@link Transcriber.Note} of it or says why not.
 *
 * @param device the authenticated device
 * @param audio the note as received; the server hashed it itself
 * @param fields its settings as sent
 * @param claimedSha256 the client's hex SHA-256 of the audio (any case), if sent
 * @param claimedDurationMs the client's length of the note, if sent
 * @param idempotencyKey the client's {@code Idempotency-Key}, if sent
 * @param requestId the client's label, for logs and usage only
 */
public record NoteRequest(
    Device device,
    SpooledAudio audio,
    SettingFields fields,
    @Nullable String claimedSha256,
    OptionalLong claimedDurationMs,
    @Nullable String idempotencyKey,
    String requestId) {}
