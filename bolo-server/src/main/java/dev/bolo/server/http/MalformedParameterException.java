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

  /**
   * Refuses a parameter given more than once: which of two values the phone meant is not the
   * gateway's to guess.
   *
   * @param values every value of a parameter, by name
   * @throws MalformedParameterException naming the first of {@code names} given more than once
   */
  static void ifRepeated(
      java.util.function.Function<String, java.util.List<String>> values,
      java.util.List<String> names) {
    for (String name : names) {
      if (values.apply(name).size() > 1) {
        throw new MalformedParameterException(name, name + " must be given at most once");
      }
    }
  }

  /** The request parameter at fault, e.g. {@code Idempotency-Key}. */
  String parameter() {
    return parameter;
  }
}
