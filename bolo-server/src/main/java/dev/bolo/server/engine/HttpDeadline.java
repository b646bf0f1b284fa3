package dev.bolo.server.engine;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.OkHttpClient;
import okhttp3.Request;

/**
 * Makes one provider call obey one deadline. OkHttp's client-wide connect, read and write timeouts
 * (10 s each by default) would otherwise end a slow provider's call long before the note's
 * deadline, while the provider goes on and bills the work: here every one of them, and the call as
 * a whole, is the time left for the note.
 */
public final class HttpDeadline {

  private HttpDeadline() {}

  /**
   * A call of {@code request} on {@code client}'s connection pool and dispatcher whose connect,
   * write, time-to-first-byte and whole-call limits are all {@code budget}.
   *
   * @throws IllegalArgumentException when {@code budget} is not positive
   */
  public static Call newCall(OkHttpClient client, Request request, Duration budget) {
    if (budget.isNegative() || budget.isZero()) {
      throw new IllegalArgumentException("budget must be positive: " + budget);
    }
    // newBuilder() shares the pool and dispatcher; only the limits differ.
    Call call =
        client
            .newBuilder()
            .connectTimeout(budget)
            .writeTimeout(budget)
            .readTimeout(budget)
            .callTimeout(budget)
            .build()
            .newCall(request);
    call.timeout().timeout(budget.toNanos(), TimeUnit.NANOSECONDS);
    return call;
  }
}
