package dev.bolo.client;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** How a note ended. Every expected ending is a value: handle each of them. */
public sealed interface Outcome {

  /** How many attempts were started (0 when the note ended before the first). */
  int attempts();

  /** The gateway transcribed the note. */
  record Transcribed(Transcript transcript, int attempts) implements Outcome {
    public Transcribed {
      Objects.requireNonNull(transcript, "transcript");
    }
  }

  /**
   * The gateway refused the note for a reason a resend cannot fix (such as 400, 401, 402, 413, 415,
   * 422, 501, or 429 without {@code Retry-After}), or answered a success that is not a transcript
   * (code {@code invalid_response}).
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
   * No transcript: the failures were transient but outlasted the {@link ResendPolicy} (attempts or
   * time window), or were of a kind no resend can fix (TLS, protocol).
   */
  record GaveUp(Failure lastFailure, int attempts) implements Outcome {
    public GaveUp {
      Objects.requireNonNull(lastFailure, "lastFailure");
    }
  }

  /**
   * The app cancelled the note: its handle or future, its coroutine, the waiting thread's
   * interrupt, or the app's own OkHttp dispatcher. No attempt started after that.
   */
  record Cancelled(int attempts) implements Outcome {}

  /**
   * The note's audio could not be read for an attempt (a deleted file, a stream that failed). Not
   * resent: reading it again would fail the same way.
   *
   * @param message what failed, such as {@code "NoSuchFileException: /notes/a.wav"}
   */
  record Unreadable(String message, int attempts) implements Outcome {
    public Unreadable {
      Objects.requireNonNull(message, "message");
    }
  }

  /**
   * The note's audio changed after it was hashed, so it was not sent: the gateway would refuse
   * audio whose hash differs from the note's. Make a new {@link VoiceNote} for the new audio.
   *
   * @param hashedSha256 the hash taken when the note was made
   * @param currentSha256 the hash of the audio now
   * @param attempts attempts started before this one was stopped
   */
  record AudioChanged(String hashedSha256, String currentSha256, int attempts) implements Outcome {
    public AudioChanged {
      Objects.requireNonNull(hashedSha256, "hashedSha256");
      Objects.requireNonNull(currentSha256, "currentSha256");
    }

    /** A sentence for the app's user or log. */
    public String message() {
      return "the audio changed after the note was made (SHA-256 "
          + hashedSha256
          + " then, "
          + currentSha256
          + " now); nothing was sent";
    }
  }
}
