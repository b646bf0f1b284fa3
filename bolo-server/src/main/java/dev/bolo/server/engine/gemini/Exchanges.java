package dev.bolo.server.engine.gemini;

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

/** Runs one HTTP exchange within what is left of a deadline and reads the whole answer. */
final class Exchanges {

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

  private static EngineResult.Failure failureFor(IOException e, String step, Duration budget) {
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
      return new EngineResult.Unavailable("cannot reach Gemini: " + e.getMessage(), null);
    }
    return new EngineResult.Failed("the Gemini " + step + " step failed: " + e);
  }
}
