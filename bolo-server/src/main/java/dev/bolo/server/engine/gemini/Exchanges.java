package dev.bolo.server.engine.gemini;

import dev.bolo.server.engine.AnswerBudget;
import dev.bolo.server.engine.AnswerLimit;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.HttpDeadline;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.time.Duration;
import okhttp3.Call;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs one HTTP exchange within what is left of a deadline and reads the whole answer. */
final class Exchanges {

  private static final Logger log = LoggerFactory.getLogger(Exchanges.class);

  private Exchanges() {}

  static Reply send(OkHttpClient client, Request request, Deadline deadline, String step) {
    Duration budget = deadline.remaining();
    // Earlier steps (the upload) may have spent the whole budget.
    if (budget.isNegative() || budget.isZero()) {
      return new Reply.Broken(
          new EngineResult.TimedOut("no time left for the Gemini " + step + " step"));
    }
    Call call = HttpDeadline.newCall(client, request, budget);
    try (Response response = call.execute()) {
      return new Reply.Answer(response.code(), response.headers(), response.body().string());
    } catch (IOException e) {
      return new Reply.Broken(failureFor(e, step, budget));
    }
  }

  /** Phones see what went wrong, never the exception's text with its host names and addresses. */
  private static EngineResult.Failure failureFor(IOException e, String step, Duration budget) {
    if (e instanceof AnswerBudget.Exhausted) {
      log.warn("no room for Gemini's answer to the {} step: {}", step, e.getMessage());
      return new EngineResult.Unavailable(
          "the gateway is busy reading other large provider answers", AnswerBudget.RETRY_AFTER);
    }
    if (e instanceof AnswerLimit.AnswerTooLargeException) {
      log.warn("Gemini's answer to the {} step was cut off: {}", step, e.getMessage());
      return new EngineResult.Failed(
          java.util.Objects.requireNonNullElse(e.getMessage(), "provider answer too large"));
    }
    // An interrupted caller is being shut down, not timed out; keep the flag for it to see.
    if (Thread.currentThread().isInterrupted()) {
      return new EngineResult.Failed("interrupted during the Gemini " + step + " step");
    }
    // OkHttp's call timeout and socket read timeouts both surface as InterruptedIOException.
    if (e instanceof InterruptedIOException) {
      return new EngineResult.TimedOut(
          "Gemini did not finish the " + step + " step within " + budget.toMillis() + " ms");
    }
    if (e instanceof ConnectException || e instanceof UnknownHostException) {
      log.warn("cannot reach Gemini in the {} step: {}", step, e.toString());
      return new EngineResult.Unavailable("cannot reach Gemini", null);
    }
    log.warn("the Gemini {} step failed: {}", step, e.toString());
    return new EngineResult.Failed("the connection to Gemini failed in the " + step + " step");
  }
}
