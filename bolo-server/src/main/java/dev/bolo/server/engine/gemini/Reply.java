package dev.bolo.server.engine.gemini;

import dev.bolo.server.engine.EngineResult;
import okhttp3.Headers;

/** What one HTTP exchange with Gemini produced: an HTTP answer, or a failure before one came. */
sealed interface Reply {

  /** A complete HTTP response; {@code body} is the whole body as text. */
  record Answer(int code, Headers headers, String body) implements Reply {
    boolean isSuccessful() {
      return code >= 200 && code < 300;
    }
  }

  /** No usable response: a timeout, a refused connection, a broken stream. */
  record Broken(EngineResult.Failure failure) implements Reply {}
}
