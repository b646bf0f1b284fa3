package dev.bolo.server.http;

/**
 * A header, query parameter or form field the handler could not read as HTTP: 400 {@code
 * invalid_parameter} naming it. What a well-read value means (a setting, a hash that must match) is
 * the use case's to judge, and it answers with a refusal instead.
 */
final class MalformedParameterException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String parameter;

  MalformedParameterException(String parameter, String message) {
    super(message);
    this.parameter = parameter;
  }

  /** The request parameter at fault, e.g. {@code Idempotency-Key}. */
  String parameter() {
    return parameter;
  }
}
