-- Resumable uploads (tus 1.0 at /v1/uploads and the IETF draft on POST /v1/transcriptions): what
-- lets an upload outlive its connection and the gateway's restart. The bytes themselves live in
-- the spool of the instance that took them (instance_id), which alone may append to them.
--   upload_length: -1 while the client has not said it (the IETF draft may tell it at the end);
--   fields:        the note's settings as a JSON object of form field names to values;
--   state:         open, transcribing, done or failed;
--   outcome:       JSON of how a finished upload ended (transcribed, refused, ...), for
--                  GET /v1/uploads/{id}/transcription.
CREATE TABLE resumable_uploads (
    id              VARCHAR(64) PRIMARY KEY,
    device_name     VARCHAR(64) NOT NULL,
    instance_id     VARCHAR(36) NOT NULL,
    protocol        VARCHAR(16) NOT NULL,
    upload_length   BIGINT NOT NULL,
    upload_offset   BIGINT NOT NULL,
    fields          TEXT NOT NULL,
    declared_sha256 VARCHAR(64),
    idempotency_key TEXT,
    state           VARCHAR(16) NOT NULL,
    audio_sha256    VARCHAR(64),
    outcome         TEXT,
    created_at      BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL
);

CREATE INDEX resumable_uploads_by_device ON resumable_uploads (device_name, state, expires_at);
CREATE INDEX resumable_uploads_by_instance ON resumable_uploads (instance_id, expires_at);
