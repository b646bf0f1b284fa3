package dev.bolo.server.transcription;

import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.work.Problem;
import dev.bolo.server.work.WorkResult;

/**
 * The one table between an engine's failures and the refusals work ends in, both ways: a note's
 * failure becomes its refusal, and a piece's refusal (kept by the work coordinator, perhaps from
 * another instance) becomes the failure of the note it belongs to. Stateless.
 */
final class EngineFailures {

  private EngineFailures() {}

  /** The refusal that stands for an engine's failure. */
  static WorkResult.Refused refusal(EngineResult.Failure failure) {
    return switch (failure) {
      case EngineResult.Rejected r ->
          new WorkResult.Refused(Problem.UPSTREAM_REJECTED, r.message());
      case EngineResult.UnsupportedAudio u ->
          new WorkResult.Refused(Problem.UNSUPPORTED_AUDIO, u.message());
      case EngineResult.InvalidAudio i ->
          new WorkResult.Refused(Problem.INVALID_AUDIO, i.message());
      case EngineResult.Unavailable u ->
          new WorkResult.Refused(Problem.UPSTREAM_UNAVAILABLE, u.message(), u.retryAfter());
      case EngineResult.Saturated s ->
          new WorkResult.Refused(Problem.SERVER_UNAVAILABLE, s.message(), s.retryAfter());
      case EngineResult.Failed f -> new WorkResult.Refused(Problem.UPSTREAM_ERROR, f.message());
      case EngineResult.TimedOut t -> new WorkResult.Refused(Problem.UPSTREAM_TIMEOUT, t.message());
    };
  }

  /**
   * The failure that a piece's refusal makes of its whole note. The gateway's own troubles with a
   * piece stay 5xx: a piece never blames the client for what the gateway could not do.
   */
  static EngineResult.Failure failure(WorkResult.Refused refused) {
    String message = refused.message();
    return switch (refused.problem()) {
      case UPSTREAM_REJECTED -> new EngineResult.Rejected(message);
      case UNSUPPORTED_AUDIO -> new EngineResult.UnsupportedAudio(message);
      case INVALID_AUDIO -> new EngineResult.InvalidAudio(message);
      case UPSTREAM_UNAVAILABLE, SERVER_UNAVAILABLE ->
          new EngineResult.Unavailable(message, refused.retryAfter());
      case UPSTREAM_TIMEOUT -> new EngineResult.TimedOut(message);
      case UPSTREAM_ERROR,
          INTERNAL,
          AUDIO_TOO_LONG,
          QUOTA_EXHAUSTED,
          IDEMPOTENCY_KEY_REUSED,
          IDEMPOTENCY_CONFLICT ->
          new EngineResult.Failed(message);
    };
  }
}
