-- The charge log: one row per charge of a piece of work. At most one charge per (device, work)
-- within the replay window (PROTOCOL.md rule 8) is enforced inside the charging transaction, under
-- the device's lock, so a lost lease, a retried charge or a second instance cannot charge the same
-- work twice. The usage report sums this table, so it agrees with devices.charged_ms.
CREATE TABLE work_charges (
    id          VARCHAR(36) PRIMARY KEY,
    device_name VARCHAR(64) NOT NULL REFERENCES devices (name),
    work_key    VARCHAR(200) NOT NULL,
    audio_ms    BIGINT NOT NULL,
    charged_at  BIGINT NOT NULL
);

CREATE INDEX work_charges_by_work ON work_charges (device_name, work_key, charged_at);
CREATE INDEX work_charges_by_time ON work_charges (device_name, charged_at);

-- Which gateway instance holds the quota, so a restarted instance drops the holds its previous
-- run left behind; and which work it is for.
ALTER TABLE quota_holds ADD COLUMN instance_id VARCHAR(36);
ALTER TABLE quota_holds ADD COLUMN work_key VARCHAR(200);

CREATE INDEX quota_holds_by_instance ON quota_holds (instance_id);
