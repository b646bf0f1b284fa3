-- Portable SQL: runs unchanged on SQLite and PostgreSQL. Times are epoch milliseconds (BIGINT) and
-- flags are 0/1 INTEGERs, because the two databases share no timestamp or boolean type that JDBC
-- maps the same way.

CREATE TABLE devices (
    name        VARCHAR(64) PRIMARY KEY,
    -- hex SHA-256 of the device's token; the token itself is never stored. NULL for a device that
    -- only authenticates through BOLO_DEVICE_TOKENS.
    token_hash  VARCHAR(64) UNIQUE,
    created_at  BIGINT NOT NULL,
    revoked_at  BIGINT,
    -- per-device allowance in audio milliseconds (0 = unlimited); NULL = the default trial
    quota_ms    BIGINT,
    charged_ms  BIGINT NOT NULL DEFAULT 0
);

-- Quota held for work in progress: inserted before the engine is called, deleted on commit (when
-- its seconds move into devices.charged_ms) or release. Holds past expires_at belong to an
-- instance that died mid-call and no longer count.
CREATE TABLE quota_holds (
    id          VARCHAR(36) PRIMARY KEY,
    device_name VARCHAR(64) NOT NULL REFERENCES devices (name),
    audio_ms    BIGINT NOT NULL,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL
);

CREATE INDEX quota_holds_by_device ON quota_holds (device_name, expires_at);

-- One row per answered transcription request.
CREATE TABLE usage_log (
    id                VARCHAR(36) PRIMARY KEY,
    device_name       VARCHAR(64) NOT NULL,
    work_key          TEXT NOT NULL,
    audio_sha256      TEXT NOT NULL,
    audio_ms          BIGINT NOT NULL,
    duration_measured INTEGER NOT NULL,
    engine            TEXT NOT NULL,
    outcome           TEXT NOT NULL,
    replayed          INTEGER NOT NULL,
    request_id        TEXT NOT NULL,
    answered_at       BIGINT NOT NULL
);

CREATE INDEX usage_log_by_device_time ON usage_log (device_name, answered_at);
CREATE INDEX usage_log_by_time ON usage_log (answered_at);
