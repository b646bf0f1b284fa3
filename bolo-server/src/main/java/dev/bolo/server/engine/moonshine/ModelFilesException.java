package dev.bolo.server.engine.moonshine;

/**
 * A model file is missing, unreadable or not the file Bolo was built with: the recogniser cannot
 * start. The message is one line that names the file and what to do, fit for a start-up error.
 */
public final class ModelFilesException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  ModelFilesException(String message) {
    super(message);
  }

  ModelFilesException(String message, Throwable cause) {
    super(message, cause);
  }
}
