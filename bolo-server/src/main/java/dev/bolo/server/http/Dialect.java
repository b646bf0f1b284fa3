package dev.bolo.server.http;

import org.jspecify.annotations.Nullable;

/**
 * Which contract a route speaks: Bolo's native one or OpenAI's. It decides the shape of every
 * answer the route writes, its errors included ({@link ErrorWriter}), and the form field the audio
 * arrives in.
 */
enum Dialect {
  NATIVE,
  OPENAI;

  /**
   * The dialect of a path: the OpenAI-compatible routes live under these prefixes (an unknown path
   * there too, so an OpenAI SDK reads its 404); everything else speaks native.
   */
  static Dialect of(@Nullable String path) {
    return path != null
            && (path.startsWith("/v1/audio/")
                || path.equals("/v1/models")
                || path.startsWith("/v1/models/"))
        ? OPENAI
        : NATIVE;
  }

  /** The form field the audio arrives in: Bolo's {@code audio}, OpenAI's {@code file}. */
  String audioField() {
    return switch (this) {
      case NATIVE -> "audio";
      case OPENAI -> "file";
    };
  }
}
