package dev.bolo.server.engine;

import org.jspecify.annotations.Nullable;

/**
 * The one table from a provider's HTTP error status to an engine's failure, for every engine that
 * calls a provider over HTTP: a refusal of the note (400, 413, 415, 422) a resend cannot mend, a
 * provider that is full or down (429, 503, 529, with its {@code Retry-After}), one that timed out
 * (408, 504), and the gateway's own misconfiguration (401, 403, 404), never blamed on the phone.
 * Stateless.
 */
public final class ProviderStatus {

  private ProviderStatus() {}

  /**
   * The failure that status {@code status} stands for.
   *
   * @param message the provider's own message, sanitised for a phone
   * @param retryAfter the provider's {@code Retry-After} header, when it sent one, as {@link
   *     AnswerLimit} made it safe (delay-seconds)
   */
  public static EngineResult.Failure failure(
      int status, String message, @Nullable String retryAfter) {
    return switch (status) {
      case 400, 413, 415, 422 -> new EngineResult.Rejected(message);
      case 404 ->
          new EngineResult.Failed("the transcription provider is misconfigured: " + message);
      case 401, 403 -> new EngineResult.Failed("the gateway's provider credentials were refused");
      case 408, 504 -> new EngineResult.TimedOut("the provider timed out: " + message);
      case 429, 503, 529 ->
          new EngineResult.Unavailable(message, ProviderRetryAfter.parseSafe(retryAfter));
      default -> new EngineResult.Failed("the provider failed with " + status + ": " + message);
    };
  }
}
