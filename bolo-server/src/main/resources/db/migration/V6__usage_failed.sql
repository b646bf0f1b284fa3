-- The requests among a rolled-up day's whose own work ended in an error (the engine refused the
-- note or failed) rather than a transcript, so that the usage report puts every request in one
-- column: transcribed, replayed or failed. Days rolled up before this column existed read 0: their
-- failures were not kept apart then, and count as transcribed.
ALTER TABLE usage_daily ADD COLUMN failed BIGINT NOT NULL DEFAULT 0;
