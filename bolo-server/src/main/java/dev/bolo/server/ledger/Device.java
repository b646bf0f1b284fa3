package dev.bolo.server.ledger;

import java.util.regex.Pattern;

/**
 * An authenticated device: whoever owns the presented token.
 *
 * @param name unique, 1–64 characters of letters, digits, dot, dash and underscore
 */
public record Device(String name) {

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

  public Device {
    if (!isValidName(name)) {
      throw new IllegalArgumentException("device name must match " + NAME + ": " + name);
    }
  }

  public static boolean isValidName(String name) {
    return NAME.matcher(name).matches();
  }
}
