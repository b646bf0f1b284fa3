package dev.bolo.client;

import java.util.Objects;

/**
 * One upload of a note, as reported to a {@link TranscriptionListener}.
 *
 * @param idempotencyKey the note's {@code Idempotency-Key}, the same for every attempt
 * @param number 1 for the first upload, 2 for the first resend, and so on
 * @param requestId this attempt's {@code X-Bolo-Request-Id}, fresh for every attempt
 */
public record Attempt(String idempotencyKey, int number, String requestId) {

  public Attempt {
    Objects.requireNonNull(idempotencyKey, "idempotencyKey");
    Objects.requireNonNull(requestId, "requestId");
    if (number < 1) {
      throw new IllegalArgumentException("number must be >= 1: " + number);
    }
  }
}
