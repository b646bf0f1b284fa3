package dev.bolo.server.dedup;

/** The answer to {@link DedupStore#bindIdempotencyKey}. */
public enum IdempotencyCheck {
  /** The key was new and is now bound to this work. */
  BOUND,
  /** The key was already bound to this same work: a resend. */
  SAME_WORK,
  /** The key is bound to other audio or settings (the IETF draft's 422). */
  OTHER_WORK
}
