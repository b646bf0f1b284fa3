package dev.bolo.server.engine;

/** A client's setting is malformed or out of range; answered with 400 {@code invalid_parameter}. */
public final class InvalidSettingException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String parameter;

  public InvalidSettingException(String parameter, String message) {
    super(message);
    this.parameter = parameter;
  }

  /** The request parameter at fault, e.g. {@code temperature}. */
  public String parameter() {
    return parameter;
  }
}
