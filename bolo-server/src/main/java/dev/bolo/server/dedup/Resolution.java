package dev.bolo.server.dedup;

import dev.bolo.server.work.KeptTranscript;
import dev.bolo.server.work.WorkResult;

/** The answer to {@link DedupStore#await}: how in-flight work ended, or that it has not yet. */
public sealed interface Resolution {

  /** The work succeeded. */
  record Completed(KeptTranscript transcript) implements Resolution {}

  /** The work failed; this refusal goes to everyone who waited on it. */
  record Failed(WorkResult.Refused refusal) implements Resolution {}

  /** Nobody holds the work and no result is stored (its lease expired): claim it afresh. */
  record Vacant() implements Resolution {}

  /** Still running when the wait timed out. */
  record Pending() implements Resolution {}
}
