package dev.bolo.audio;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/** Builds and patches test notes byte by byte. */
final class Bytes {

  private Bytes() {}

  /** A PCM WAV of silence: 44-byte header, then {@code millis} of samples. */
  static byte[] wav(int sampleRate, int channels, int bits, int millis) {
    int align = channels * ((bits + 7) / 8);
    int dataBytes = (int) ((long) sampleRate * millis / 1000) * align;
    ByteBuffer buffer = ByteBuffer.allocate(44 + dataBytes).order(ByteOrder.LITTLE_ENDIAN);
    buffer.put(ascii("RIFF")).putInt(36 + dataBytes).put(ascii("WAVE"));
    buffer.put(ascii("fmt ")).putInt(16);
    buffer.putShort((short) 1).putShort((short) channels).putInt(sampleRate);
    buffer.putInt(sampleRate * align).putShort((short) align).putShort((short) bits);
    buffer.put(ascii("data")).putInt(dataBytes);
    return buffer.array();
  }

  static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.ISO_8859_1);
  }

  /** The offset of the first {@code marker} at or after {@code from}. */
  static int indexOf(byte[] bytes, String marker, int from) {
    byte[] want = ascii(marker);
    outer:
    for (int i = from; i <= bytes.length - want.length; i++) {
      for (int j = 0; j < want.length; j++) {
        if (bytes[i + j] != want[j]) {
          continue outer;
        }
      }
      return i;
    }
    throw new IllegalArgumentException(marker + " not found");
  }

  static int lastIndexOf(byte[] bytes, String marker) {
    byte[] want = ascii(marker);
    outer:
    for (int i = bytes.length - want.length; i >= 0; i--) {
      for (int j = 0; j < want.length; j++) {
        if (bytes[i + j] != want[j]) {
          continue outer;
        }
      }
      return i;
    }
    throw new IllegalArgumentException(marker + " not found");
  }

  static ByteBuffer little(byte[] bytes) {
    return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
  }

  static ByteBuffer big(byte[] bytes) {
    return ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
  }

  static byte[] concat(byte[]... parts) {
    int length = 0;
    for (byte[] part : parts) {
      length += part.length;
    }
    byte[] all = new byte[length];
    int at = 0;
    for (byte[] part : parts) {
      System.arraycopy(part, 0, all, at, part.length);
      at += part.length;
    }
    return all;
  }
}
