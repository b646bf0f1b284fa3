package dev.bolo.server.ledger;

import java.util.Locale;

/** Where a job is in its life; the wire names them in lower case (PROTOCOL v4). */
public enum JobStatus {
  /** Accepted, its note stored; no instance runs it yet. */
  QUEUED,
  /** An instance holds its lease and is transcribing it. */
  RUNNING,
  /** Ended with a transcript. */
  SUCCEEDED,
  /** Ended with an error. */
  FAILED,
  /** Ended by its device's DELETE before it succeeded or failed. */
  CANCELLED;

  /** True once the job ended: nothing changes it any more. */
  public boolean isFinal() {
    return this == SUCCEEDED || this == FAILED || this == CANCELLED;
  }

  /** The name clients read and send ({@code queued}, {@code running}, ...). */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
