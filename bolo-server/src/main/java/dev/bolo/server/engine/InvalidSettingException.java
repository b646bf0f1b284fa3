package dev.bolo.server.engine;

/**
 * A client's setting is malformed or out of range (400 {@code invalid_parameter}), or well formed
 * but not offered by this gateway (422 {@code invalid_parameter}).
 */
public final class InvalidSettingException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** Why the setting was refused; decides the status. */
  public enum Kind {
    /** The value cannot be read or is out of range: 400. */
    MALFORMED,
    /**
     * The value is valid but this gateway does not offer it, e.g. a model off the allow-list: 422.
     */
    NOT_OFFERED
  }

  private final String parameter;
  private final Kind kind;

  public InvalidSettingException(String parameter, String message) {
    this(parameter, message, Kind.MALFORMED);
  }

  public InvalidSettingException(String parameter, String message, Kind kind) {
    super(message);
    this.parameter = parameter;
    this.kind = kind;
  }

  /** The request parameter at fault, e.g. {@code temperature}. */
  public String parameter() {
    return parameter;
  }

  public Kind kind() {
    return kind;
  }
}
