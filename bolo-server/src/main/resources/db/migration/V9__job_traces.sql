-- The trace a job's story belongs to (W3C Trace Context, docs/operations/tracing.md), kept with the
-- job so that a run after a restart or on another instance still links to the request that made it.
-- NULL where no trace was recorded (traces off, or rows made before this version).
--   jobs.traceparent:           the traceparent of the span of the request that made the job;
--   webhook_outbox.traceparent: the traceparent of the span that ended the job (its run, or the
--                               request that cancelled it): each delivery attempt is its child.
ALTER TABLE jobs ADD COLUMN traceparent VARCHAR(55);
ALTER TABLE webhook_outbox ADD COLUMN traceparent VARCHAR(55);
