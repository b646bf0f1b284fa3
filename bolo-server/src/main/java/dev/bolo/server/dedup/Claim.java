package dev.bolo.server.dedup;

import dev.bolo.server.work.KeptTranscript;
import io.opentelemetry.api.trace.SpanContext;
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

  /**
   * Someone else holds a live lease on the work; {@link DedupStore#await} its end.
   *
   * @param owner the span of the copy whose work it is, as the owner put it with its claim ({@link
   *     DedupStore#claim}); invalid when the store does not know it (traces off, an owner of an
   *     earlier version)
   */
  record Busy(SpanContext owner) implements Claim {
    public Busy {
      Objects.requireNonNull(owner, "owner");
    }

    /** Busy, the owner's span unknown. */
    public Busy() {
      this(SpanContext.getInvalid());
    }
  }
}
