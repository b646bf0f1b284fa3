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
   * @param transcript what it heard: the text, its times where the engine gives them, and the
   *     note's length as the engine found it ({@link Transcript#durationMs()})
   * @param usage the provider's {@code usage} object as compact JSON, when it gave one (OpenAI's
   *     tokens or duration); passed on to OpenAI clients with the transcript
   * @param engine the engine that did the work, when another than the one called (a route's
   *     target); null otherwise
   * @param model the model that did the work, likewise
   */
  record Transcribed(
      Transcript transcript,
      @Nullable String usage,
      @Nullable String engine,
      @Nullable String model)
      implements EngineResult {
    public Transcribed {
      Objects.requireNonNull(transcript, "transcript");
    }

    /** A transcript as its engine made it. */
    public Transcribed(Transcript transcript, @Nullable String usage) {
      this(transcript, usage, null, null);
    }

    /** A transcript whose provider reported no usage. */
    public Transcribed(Transcript transcript) {
      this(transcript, null);
    }

    /** This transcript, made by {@code engine}'s {@code model}. */
    public Transcribed servedBy(String engine, String model) {
      return new Transcribed(transcript, usage, engine, model);
    }

    /** The transcript's plain text. */
    public String text() {
      return transcript.text();
    }

    /**
     * The note's length as the engine found it, when it did: the duration the provider reported, or
     * the length of the samples the gateway decoded (the offline engine, a note sent in pieces);
     * the note is charged this when it is longer than the container's header said, and this
     * whenever the header said nothing (PROTOCOL.md rule 8).
     */
    public OptionalLong reportedDurationMs() {
      return transcript.durationMs();
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
