-- Jobs (POST /v1/jobs, PROTOCOL v4): a note handed over to be transcribed later, its bytes, and
-- the events its webhook is told, all in the ledger's database so that a job outlives its gateway
-- and any instance sharing the database may run it. Portable SQL, as V1: times are epoch
-- milliseconds; BYTEA is PostgreSQL's byte string and, on SQLite, a column that keeps blobs as
-- they are.
--   status:      QUEUED, RUNNING, SUCCEEDED, FAILED or CANCELLED;
--   fields:      the note's settings as sent, a JSON object of form field names to values;
--   result:      the transcription answer (JSON) of a succeeded job; error: the error (JSON) of a
--                failed one;
--   lease_owner: the instance slot running it, until lease_until; a lapsed lease is anyone's. A
--                queued job with a lease_until and no owner waits until then (a retry's pause);
--   attempts:    how many times an instance took it.
CREATE TABLE jobs (
    id                  VARCHAR(40) PRIMARY KEY,
    device_name         VARCHAR(64) NOT NULL,
    status              VARCHAR(16) NOT NULL,
    fields              TEXT NOT NULL,
    audio_sha256        VARCHAR(64) NOT NULL,
    audio_bytes         BIGINT NOT NULL,
    duration_ms         BIGINT,
    claimed_duration_ms BIGINT,
    idempotency_key     TEXT,
    webhook_url         TEXT,
    metadata            TEXT NOT NULL,
    result              TEXT,
    error               TEXT,
    created_at          BIGINT NOT NULL,
    finished_at         BIGINT,
    lease_owner         VARCHAR(36),
    lease_until         BIGINT,
    attempts            INTEGER NOT NULL DEFAULT 0
);

-- NULL keys are distinct on both databases: only keyed jobs meet here.
CREATE UNIQUE INDEX jobs_by_idempotency_key ON jobs (device_name, idempotency_key);
CREATE INDEX jobs_by_device ON jobs (device_name, created_at);
CREATE INDEX jobs_waiting ON jobs (status, created_at);

-- A queued job's note, in pieces of at most a mebibyte, in order of seq; deleted when it ends.
CREATE TABLE job_audio (
    job_id VARCHAR(40) NOT NULL,
    seq    INTEGER NOT NULL,
    bytes  BYTEA NOT NULL,
    PRIMARY KEY (job_id, seq)
);

-- The webhook events still to deliver, and those delivered or given up (kept until the job goes):
-- written in the transaction that ends the job, so an ended job's event is never lost.
--   id:     the webhook-id, the same on every attempt; body: exactly the bytes signed and sent;
--   state:  PENDING, DELIVERED, FAILED (24 h of attempts) or BLOCKED (the address may not be called).
CREATE TABLE webhook_outbox (
    id              VARCHAR(40) PRIMARY KEY,
    job_id          VARCHAR(40) NOT NULL,
    device_name     VARCHAR(64) NOT NULL,
    url             TEXT NOT NULL,
    event_type      VARCHAR(32) NOT NULL,
    body            TEXT NOT NULL,
    state           VARCHAR(16) NOT NULL,
    attempts        INTEGER NOT NULL,
    created_at      BIGINT NOT NULL,
    next_attempt_at BIGINT NOT NULL,
    last_status     INTEGER,
    last_detail     TEXT
);

CREATE INDEX webhook_outbox_due ON webhook_outbox (state, next_attempt_at);
CREATE INDEX webhook_outbox_by_job ON webhook_outbox (job_id);
