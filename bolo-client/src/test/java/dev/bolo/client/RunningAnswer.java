package dev.bolo.client;

import java.util.Locale;
import mockwebserver3.MockResponse;

/**
 * The gateway's 202 {@code running}, as the lookup and a resumable upload's transcription answer.
 */
final class RunningAnswer {

  private RunningAnswer() {}

  /** Running, with no word of how far the work got. */
  static MockResponse withoutProgress() {
    return body("{\"status\":\"running\"}");
  }

  /** Running, {@code secondsDone} of the note's {@code secondsTotal} transcribed. */
  static MockResponse at(double secondsDone, double secondsTotal) {
    return body(
        String.format(
            Locale.ROOT,
            "{\"status\":\"running\",\"seconds_done\":%s,\"seconds_total\":%s}",
            secondsDone,
            secondsTotal));
  }

  private static MockResponse body(String json) {
    return new MockResponse.Builder()
        .code(202)
        .addHeader("Retry-After", "1")
        .addHeader("Content-Type", "application/json")
        .body(json)
        .build();
  }
}
