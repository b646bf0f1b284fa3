package dev.bolo.server.dedup;

import dev.bolo.server.work.KeptTranscript;
import java.util.Objects;

/** The answer to {@link DedupStore#claim}: who does the work for a key. */
public sealed interface Claim {

  /**
   * The caller now owns the work and must end it with {@link DedupStore#complete} or {@link
   * DedupStore#fail}, renewing the lease while it runs.
   *
   * @param token proves ownership to the store; unique per claim
   */
  record Owned(String token) implements Claim {
    public Owned {
      Objects.requireNonNull(token, "token");
    }
  }

  /** The work is already done; replay this transcript. */
  record Completed(KeptTranscript transcript) implements Claim {}

  /** Someone else holds a live lease on the work; {@link DedupStore#await} its end. */
  record Busy() implements Claim {}
}
