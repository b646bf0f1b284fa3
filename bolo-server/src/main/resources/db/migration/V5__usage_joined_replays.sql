-- Replays split by kind, for the operator dashboard: joined = answered by work that was in flight
-- when the request arrived, cached = answered from a stored result. 1 = joined. Replays recorded
-- before this column existed read as cached (0): the kind was not kept then.
ALTER TABLE usage_log ADD COLUMN joined INTEGER NOT NULL DEFAULT 0;

-- The joined replays among a rolled-up day's replays; the cached ones are the rest.
ALTER TABLE usage_daily ADD COLUMN joined_replays BIGINT NOT NULL DEFAULT 0;
