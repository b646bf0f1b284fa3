package dev.bolo.server.work;

/** Why a piece of work produced no transcript. The HTTP layer maps each to a status and code. */
public enum Problem {
  /** The engine refused this audio or these settings; resending cannot help. */
  UPSTREAM_REJECTED,
  /** The note is longer than this engine takes; another engine may (413). */
  AUDIO_TOO_LONG,
  /** The note's bytes are damaged or not audio: the client's fault (400). */
  INVALID_AUDIO,
  /** The engine cannot read this container. */
  UNSUPPORTED_AUDIO,
  /** The engine is overloaded or down; a resend may succeed. */
  UPSTREAM_UNAVAILABLE,
  /** The engine failed or answered nonsense; a resend may succeed. */
  UPSTREAM_ERROR,
  /**
   * The gateway itself cannot take the note now (its ledger is unreachable, it is draining); a
   * resend may succeed.
   */
  SERVER_UNAVAILABLE,
  /**
   * The gateway failed unexpectedly (a bug, a full heap) while the note was transcribed; a resend
   * may succeed. The cause is logged, never told.
   */
  INTERNAL,
  /** The engine did not answer in time; a resend may succeed. */
  UPSTREAM_TIMEOUT,
  /** The device's free seconds are spent. */
  QUOTA_EXHAUSTED,
  /** The client's Idempotency-Key is already bound to other audio or settings. */
  IDEMPOTENCY_KEY_REUSED,
  /** A stored transcript does not answer the key it was stored under: a bug guard. */
  IDEMPOTENCY_CONFLICT
}
