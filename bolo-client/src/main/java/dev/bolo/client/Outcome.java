package dev.bolo.client;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** How a note ended. Every expected ending is a value: handle each of them. */
public sealed interface Outcome {

  /** How many attempts were started (0 when the note was cancelled before the first). */
  int attempts();

  /** The gateway transcribed the note. */
  record Transcribed(Transcript transcript, int attempts) implements Outcome {
    public Transcribed {
      Objects.requireNonNull(transcript, "transcript");
    }
  }

  /**
   * The gateway refused the note for a reason a resend cannot fix (such as 400, 401, 402, 413, 415,
   * 422, 501, or 429 without {@code Retry-After}).
   */
  record Refused(Failure.Http error, int attempts) implements Outcome {
    public Refused {
      Objects.requireNonNull(error, "error");
    }

    /** The HTTP status. */
    public int status() {
      return error.status();
    }

    /** The gateway's {@code code}, when its body had one. */
    public @Nullable String code() {
      return error.code();
    }

    /** The gateway's {@code error} message. */
    public String message() {
      return error.message();
    }
  }

  /**
   * No transcript: the failures were transient but outlasted {@link ResendPolicy} (attempts or time
   * window), or were of a kind no resend can fix (TLS, protocol).
   */
  record GaveUp(Failure lastFailure, int attempts) implements Outcome {
    public GaveUp {
      Objects.requireNonNull(lastFailure, "lastFailure");
    }
  }

  /** The note was cancelled (by its handle or an interrupt); no attempt started after that. */
  record Cancelled(int attempts) implements Outcome {}
}
