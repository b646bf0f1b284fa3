-- Each device's webhook signing secrets (Standard Webhooks' whsec_..., PROTOCOL v4). Unlike a
-- token, a secret is kept in clear: the gateway computes an HMAC with it for every event, which a
-- hash cannot give. It is protected as the rest of the ledger is (the embedded file and its folder
-- are the gateway user's alone; PostgreSQL's access is the operator's), shown to the operator only
-- when made, and never listed, logged or answered again.
--   retires_at: NULL for the device's current secret; set by a rotation to 24 h after it, when the
--               replaced secret stops signing. A device enrolled before this table has no secret
--               until the operator rotates one in (bolo devices rotate-secret NAME prints it).
CREATE TABLE webhook_secrets (
    id          VARCHAR(36) PRIMARY KEY,
    device_name VARCHAR(64) NOT NULL REFERENCES devices (name),
    secret      VARCHAR(128) NOT NULL,
    created_at  BIGINT NOT NULL,
    retires_at  BIGINT
);

CREATE INDEX webhook_secrets_by_device ON webhook_secrets (device_name, retires_at);
