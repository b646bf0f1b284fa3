package dev.bolo.server.engine;

import java.util.Locale;
import java.util.Optional;

/** The output shapes of OpenAI's transcription API, which every engine is asked for. */
public enum ResponseFormat {
  JSON("json"),
  TEXT("text"),
  VERBOSE_JSON("verbose_json"),
  SRT("srt"),
  VTT("vtt");

  private final String wireName;

  ResponseFormat(String wireName) {
    this.wireName = wireName;
  }

  /** The name on the wire, e.g. {@code verbose_json}. */
  public String wireName() {
    return wireName;
  }

  /** True for the formats whose answer is the upstream body itself, not a bare text. */
  public boolean isFormattedBody() {
    return this == VERBOSE_JSON || this == SRT || this == VTT;
  }

  /** Parses a wire name, ignoring case and surrounding blanks. */
  public static Optional<ResponseFormat> fromWire(String value) {
    String wanted = value.trim().toLowerCase(Locale.ROOT);
    for (ResponseFormat format : values()) {
      if (format.wireName.equals(wanted)) {
        return Optional.of(format);
      }
    }
    return Optional.empty();
  }
}
