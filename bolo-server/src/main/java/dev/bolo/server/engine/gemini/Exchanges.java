package dev.bolo.server.engine.gemini;

import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.ProviderCall;
import java.time.Duration;
import okhttp3.OkHttpClient;
import okhttp3.Request;

/**
 * Runs one HTTP exchange with Gemini within what is left of a deadline and reads the whole answer.
 * A failure before an answer is what {@link ProviderCall} decides for every provider, in Gemini's
 * words; phones never see the exception's text with its host names and addresses.
 */
final class Exchanges {

  private Exchanges() {}

  static Reply send(OkHttpClient client, Request request, Deadline deadline, String step) {
    Duration budget = deadline.remaining();
    // Earlier steps (the upload) may have spent the whole budget.
    if (budget.isNegative() || budget.isZero()) {
      return new Reply.Broken(
          new EngineResult.TimedOut("no time left for the Gemini " + step + " step"));
    }
    return ProviderCall.exchange(
        client,
        request,
        budget,
        "Gemini's " + step + " step",
        new StepWording(step),
        response -> new Reply.Answer(response.code(), response.headers(), response.body().string()),
        Reply.Broken::new);
  }

  /** Gemini's sentences for a step that failed before its answer. */
  private record StepWording(String step) implements ProviderCall.Wording {

    @Override
    public String unreachable() {
      return "cannot reach Gemini";
    }

    @Override
    public String timedOut(Duration timeout) {
      return "Gemini did not finish the " + step + " step within " + timeout.toMillis() + " ms";
    }

    @Override
    public String broken() {
      return "the connection to Gemini failed in the " + step + " step";
    }

    @Override
    public String notHttp() {
      return "Gemini's answer to the " + step + " step was not HTTP";
    }
  }
}
