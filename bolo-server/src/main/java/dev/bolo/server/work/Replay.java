package dev.bolo.server.work;

/**
 * Where an answer came from: this request's own work, or other work. The coordinator decides it,
 * the meters count it and the usage log keeps it; operators watch joins and cache hits separately.
 */
public enum Replay {
  /** This request's own work, run for it. */
  NONE,
  /** Work that was in flight when the request arrived, on this instance or another. */
  JOINED,
  /** A result stored by earlier work. */
  CACHED
}
