package dev.bolo.server.engine;

import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * What an engine made of one note. Expected failures are values, not exceptions, so that every
 * caller handles each of them: switch over this type exhaustively.
 */
public sealed interface EngineResult {

  /**
   * The engine transcribed the note.
   *
   * @param text the transcript text; for {@code srt} and {@code vtt} the subtitle document
   * @param body the engine's formatted answer for {@code verbose_json}, {@code srt} and {@code
   *     vtt}; null for {@code json} and {@code text}
   * @param reportedDurationMs the note's length as the engine found it, when it did: the duration
   *     the provider reported, or the length of the samples the gateway decoded (the offline
   *     engine, a note sent in pieces); the note is charged this when it is longer than the
   *     container's header said, and this whenever the header said nothing (PROTOCOL.md rule 8)
   * @param usage the provider's {@code usage} object as compact JSON, when it gave one (OpenAI's
   *     tokens or duration); passed on to OpenAI clients with the transcript
   * @param engine the engine that did the work, when another than the one called (a route's
   *     target); null otherwise
   * @param model the model that did the work, likewise
   */
  record Transcribed(
      String text,
      @Nullable String body,
      OptionalLong reportedDurationMs,
      @Nullable String usage,
      @Nullable String engine,
      @Nullable String model)
      implements EngineResult {
    public Transcribed {
      Objects.requireNonNull(text, "text");
      Objects.requireNonNull(reportedDurationMs, "reportedDurationMs");
    }

    /** A transcript as its engine made it. */
    public Transcribed(
        String text,
        @Nullable String body,
        OptionalLong reportedDurationMs,
        @Nullable String usage) {
      this(text, body, reportedDurationMs, usage, null, null);
    }

    /** This transcript, made by {@code engine}'s {@code model}. */
    public Transcribed servedBy(String engine, String model) {
      return new Transcribed(text, body, reportedDurationMs, usage, engine, model);
    }

    /** A transcript whose provider reported its length but no usage. */
    public Transcribed(String text, @Nullable String body, OptionalLong reportedDurationMs) {
      this(text, body, reportedDurationMs, null);
    }

    /** A transcript whose provider reported no length. */
    public Transcribed(String text, @Nullable String body) {
      this(text, body, OptionalLong.empty(), null);
    }
  }

  /**
   * Every outcome but a transcript; each says whether a resend of the same note may succeed. What a
   * failure means beyond its status is read from the few checks below, the one ladder routes,
   * breakers and pieces all read (as OkHttp's {@code RetryAndFollowUpInterceptor.recover()}).
   */
  sealed interface Failure extends EngineResult {
    String message();

    /**
     * Whether the note itself is refused (400, 415, 422): a resend gets the same answer, and
     * another provider would only be paid to refuse it too.
     */
    default boolean isNoteRefusal() {
      return this instanceof Rejected
          || this instanceof InvalidAudio
          || this instanceof UnsupportedAudio;
    }

    /**
     * Whether the failure is the provider's: its breaker counts it, and the note may be tried on
     * the next provider.
     */
    default boolean countsAgainstProvider() {
      // The note's own fault says nothing of the provider's health: it answered as it should.
      if (isNoteRefusal()) {
        return false;
      }
      // The gateway's own bound (no room for answers, no provider free): every provider would meet
      // it, and none is to blame.
      if (this instanceof Saturated) {
        return false;
      }
      // Down, broken, slow or answering nonsense: the provider's.
      return true;
    }

    /**
     * How long the provider asked to be left alone (RFC 9110 {@code Retry-After}), or the gateway
     * asks the phone to wait; null when no one said.
     */
    default @Nullable Duration retryAfter() {
      return null;
    }
  }

  /** The engine refused this audio or these settings; a resend gets the same answer (422). */
  record Rejected(String message) implements Failure {}

  /**
   * The note's bytes are not audio the engine can decode: damaged, or not audio at all (400); a
   * resend of the same bytes gets the same answer.
   */
  record InvalidAudio(String message) implements Failure {}

  /** The engine cannot read this container at all (415). */
  record UnsupportedAudio(String message) implements Failure {}

  /** The engine is overloaded or down (503); {@code retryAfter} when the engine said. */
  record Unavailable(String message, @Nullable Duration retryAfter) implements Failure {}

  /**
   * The gateway cannot hand the note to any provider now: every one that could take it is open,
   * full or out of calls (503 {@code server_unavailable}, the shortest honest {@code Retry-After}).
   */
  record Saturated(String message, Duration retryAfter) implements Failure {}

  /** The engine failed or answered nonsense (502). */
  record Failed(String message) implements Failure {}

  /** The engine did not answer in time (504). */
  record TimedOut(String message) implements Failure {}
}
