package dev.bolo.client;

import mockwebserver3.MockResponse;

/** A stand-in gateway's JSON answers, as the client's tests script them. */
final class JsonAnswers {

  private JsonAnswers() {}

  /** An answer of {@code status} whose body is {@code body}, typed as JSON. */
  static MockResponse json(int status, String body) {
    return new MockResponse.Builder()
        .code(status)
        .addHeader("Content-Type", "application/json")
        .body(body)
        .build();
  }
}
