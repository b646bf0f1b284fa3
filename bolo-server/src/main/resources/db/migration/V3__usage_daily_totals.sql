-- Usage older than BOLO_USAGE_RETENTION, rolled up into one row per device and UTC day, so the
-- usage log stops growing with every request while the usage report keeps its figures.
-- utc_day counts days since 1970-01-01 (UTC). The columns are what the report sums:
--   requests, replays, saved_ms: the day's usage_log rows, counted as the report counts them;
--   charged_ms: the day's work_charges rows (by charged_at);
--   unique_notes: the day's distinct notes answered ok that were not answered ok again on a later
--     day, as known at the roll-up. A note is thereby counted on the last day it was answered, so
--     the distinct notes from any day on are these plus the distinct notes still in the log.
CREATE TABLE usage_daily (
    device_name  VARCHAR(64) NOT NULL,
    utc_day      BIGINT NOT NULL,
    requests     BIGINT NOT NULL,
    unique_notes BIGINT NOT NULL,
    replays      BIGINT NOT NULL,
    charged_ms   BIGINT NOT NULL,
    saved_ms     BIGINT NOT NULL,
    PRIMARY KEY (device_name, utc_day)
);

-- Whether a note is answered again on a later day, asked once per note of a day being rolled up.
CREATE INDEX usage_log_by_work ON usage_log (device_name, work_key, answered_at);

-- The oldest charge, asked before each day is rolled up.
CREATE INDEX work_charges_by_charge_time ON work_charges (charged_at);

-- One row, locked by each roll-up transaction first, so that roll-ups of several gateway
-- instances sharing a database move each day once. rolled_before: every usage row and charge
-- before this epoch millisecond has been rolled up.
CREATE TABLE usage_rollup (
    id            INTEGER PRIMARY KEY,
    rolled_before BIGINT NOT NULL
);

INSERT INTO usage_rollup (id, rolled_before) VALUES (1, 0);
