package dev.bolo.server.engine.gemini;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.ProviderMessage;
import dev.bolo.server.engine.ProviderRetryAfter;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Maps Gemini's error answers to outcomes, following Google's table of API errors: the caller's
 * mistakes are {@code Rejected}, overload is {@code Unavailable}, the gateway's own configuration
 * (key, model, billing) is {@code Failed} with an ERROR log for the operator.
 */
final class GeminiErrors {

  private static final Logger log = LoggerFactory.getLogger(GeminiErrors.class);

  private final ObjectMapper json;

  GeminiErrors(ObjectMapper json) {
    this.json = json;
  }

  /**
   * The outcome for a non-2xx answer.
   *
   * @param step which exchange answered, for messages
   * @param clientModel the model when the client chose it, so that a 404 is the client's mistake;
   *     null when the model is the gateway's own
   */
  EngineResult.Failure failure(Reply.Answer answer, String step, @Nullable String clientModel) {
    GoogleError error = GoogleError.parse(json, answer.body());
    int code = answer.code();
    log.warn("Gemini answered {} to the {} step: {}", code, step, logged(answer.body()));
    String said = describe(code, error);
    // Gemini answers an unknown key with 400 INVALID_ARGUMENT and ErrorInfo API_KEY_INVALID, so the
    // reason is checked before the status: the audio is not at fault and a resend will not help
    // until an operator fixes the key.
    if (code == 401 || code == 403 || error.isKeyProblem()) {
      log.error(
          "Gemini refused the gateway's API key ({}); check BOLO_GEMINI_API_KEY: every Gemini"
              + " transcription fails until it is fixed",
          said);
      return new EngineResult.Failed("Gemini refused the gateway's API key (" + said + ")");
    }
    return switch (code) {
      case 400 -> isOperatorProblem(error) ? operatorFailure(step, said) : rejected(said);
      case 404 ->
          clientModel != null
              ? new EngineResult.Rejected("Gemini has no model " + clientModel + " (" + said + ")")
              : operatorFailure(step, said);
      case 408, 504 ->
          new EngineResult.TimedOut("Gemini timed out in the " + step + " step (" + said + ")");
      case 413 -> rejected(said);
      case 429 ->
          new EngineResult.Unavailable(
              "Gemini's quota for this gateway is exhausted (" + said + ")",
              retryAfter(answer, error));
      case 503 ->
          new EngineResult.Unavailable(
              "Gemini is overloaded or down (" + said + ")", retryAfter(answer, error));
      default -> new EngineResult.Failed("Gemini failed in the " + step + " step (" + said + ")");
    };
  }

  /**
   * FAILED_PRECONDITION is billing or region (or a file not yet ACTIVE): the gateway's account, not
   * the note.
   */
  private static boolean isOperatorProblem(GoogleError error) {
    return error.status().equals("FAILED_PRECONDITION");
  }

  private static EngineResult.Failure operatorFailure(String step, String said) {
    log.error(
        "Gemini refused the {} step for a reason in the gateway's configuration ({}); check"
            + " BOLO_GEMINI_MODEL, BOLO_GEMINI_BASE_URL and the account's billing",
        step,
        said);
    return new EngineResult.Failed("Gemini refused the gateway's request (" + said + ")");
  }

  private static EngineResult.Failure rejected(String said) {
    return new EngineResult.Rejected("Gemini rejected the note (" + said + ")");
  }

  /** "HTTP 429 RESOURCE_EXHAUSTED: Quota exceeded ..." with whatever parts Google gave. */
  private static String describe(int code, GoogleError error) {
    StringBuilder said = new StringBuilder("HTTP ").append(code);
    if (!error.status().isEmpty()) {
      said.append(' ').append(error.status());
    }
    // Google's messages can quote the key's project, URLs and addresses; phones get a clean one.
    String message = ProviderMessage.sanitised(error.message(), "");
    if (!message.isEmpty()) {
      said.append(": ").append(message);
    }
    return said.toString();
  }

  /**
   * The Retry-After header when present (RFC 9110 §10.2.3), else the RetryInfo delay in the body,
   * which Gemini uses on 429. The gateway's provider client passes every answer through {@link
   * dev.bolo.server.engine.AnswerLimit}, which has measured an HTTP-date from the moment the answer
   * arrived and left the header in delay-seconds.
   */
  static @Nullable Duration retryAfter(Reply.Answer answer, GoogleError error) {
    Duration header = ProviderRetryAfter.parseSafe(answer.headers().get("Retry-After"));
    return header != null ? header : error.retryDelay();
  }

  private static String logged(String body) {
    return body.length() <= 2000 ? body : body.substring(0, 2000) + "…";
  }
}
