package dev.bolo.decode;

import static org.bytedeco.ffmpeg.global.avutil.av_strerror;

import java.nio.charset.StandardCharsets;
import org.bytedeco.javacpp.BytePointer;

/**
 * FFmpeg's error codes in its own words, for the log: never for a client, who is told Bolo's
 * sentence ({@link UndecodableAudioException#sentence()}).
 */
final class FfmpegError {

  /** FFmpeg's AV_ERROR_MAX_STRING_SIZE is 64; its messages are far shorter than this. */
  private static final int CAPACITY = 256;

  private FfmpegError() {}

  /**
   * FFmpeg's text for {@code code}, with the code: the C string av_strerror wrote, up to its NUL
   * and not a byte past it (the buffer's other bytes are whatever native memory held), as one line
   * of printable ASCII.
   */
  static String describe(int code) {
    try (BytePointer text = new BytePointer(CAPACITY)) {
      if (av_strerror(code, text, CAPACITY) != 0) {
        return "error " + code;
      }
      byte[] bytes = new byte[CAPACITY];
      text.get(bytes);
      int end = 0;
      while (end < CAPACITY && bytes[end] != 0) {
        end++;
      }
      return printable(new String(bytes, 0, end, StandardCharsets.US_ASCII)) + " (" + code + ")";
    }
  }

  /** {@code words} with every character outside printable ASCII as {@code ?}. */
  static String printable(String words) {
    StringBuilder line = new StringBuilder(words.length());
    for (int i = 0; i < words.length(); i++) {
      char c = words.charAt(i);
      line.append(c >= 0x20 && c < 0x7f ? c : '?');
    }
    return line.toString();
  }
}
