package dev.bolo.decode;

import static org.bytedeco.ffmpeg.global.avutil.av_strerror;

import org.bytedeco.javacpp.BytePointer;

/** FFmpeg's error codes in words. */
final class FfmpegError {

  private FfmpegError() {}

  /** FFmpeg's own text for {@code code}, with the code. */
  static String describe(int code) {
    try (BytePointer text = new BytePointer(256)) {
      // The sentence ends at its NUL: getString() alone reads to the buffer's limit, and the rest
      // of a fresh native buffer is whatever memory held before (a client would read it).
      String words =
          av_strerror(code, text, 256) == 0
              ? text.limit(BytePointer.strlen(text)).getString()
              : "unknown error";
      return words + " (" + code + ")";
    }
  }
}
