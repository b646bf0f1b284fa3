package dev.bolo.bench;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/** A large WAV note and its multipart upload body, cut into the chunks a socket delivers. */
final class BenchBodies {

  static final String BOUNDARY = "bolo-bench-boundary-7MA4YWxkTrZu0gW";
  static final String CONTENT_TYPE = "multipart/form-data; boundary=" + BOUNDARY;

  private BenchBodies() {}

  /**
   * A 16 kHz mono 16-bit WAV of {@code bytes} bytes whose samples are random: noise has no long
   * runs of the boundary's first byte, as a real recording, so the scan meets no easy case.
   */
  static byte[] wav(int bytes, long seed) {
    int dataBytes = bytes - 44;
    ByteBuffer buffer = ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
    buffer.put("RIFF".getBytes(StandardCharsets.US_ASCII)).putInt(36 + dataBytes);
    buffer.put("WAVE".getBytes(StandardCharsets.US_ASCII));
    buffer.put("fmt ".getBytes(StandardCharsets.US_ASCII)).putInt(16);
    buffer.putShort((short) 1).putShort((short) 1).putInt(16_000);
    buffer.putInt(32_000).putShort((short) 2).putShort((short) 16);
    buffer.put("data".getBytes(StandardCharsets.US_ASCII)).putInt(dataBytes);
    SplittableRandom random = new SplittableRandom(seed);
    byte[] array = buffer.array();
    for (int i = 44; i < bytes; i++) {
      array[i] = (byte) random.nextInt(256);
    }
    return array;
  }

  /** The upload body as a phone sends it: the note in part {@code file}, then a model field. */
  static byte[] multipart(byte[] audio) {
    byte[] head =
        ("--"
                + BOUNDARY
                + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"note.wav\"\r\n"
                + "Content-Type: audio/wav\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    byte[] tail =
        ("\r\n--"
                + BOUNDARY
                + "\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n--"
                + BOUNDARY
                + "--\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    byte[] body = new byte[head.length + audio.length + tail.length];
    System.arraycopy(head, 0, body, 0, head.length);
    System.arraycopy(audio, 0, body, head.length, audio.length);
    System.arraycopy(tail, 0, body, head.length + audio.length, tail.length);
    return body;
  }

  /**
   * {@code bytes} cut into views of {@code chunkBytes} (the last one shorter), backed by the array
   * as the chunks Jetty hands the parser are; use a {@code duplicate()} of each per pass.
   */
  static List<ByteBuffer> chunks(byte[] bytes, int chunkBytes) {
    List<ByteBuffer> chunks = new ArrayList<>();
    for (int at = 0; at < bytes.length; at += chunkBytes) {
      chunks.add(ByteBuffer.wrap(bytes, at, Math.min(chunkBytes, bytes.length - at)).slice());
    }
    return chunks;
  }
}
