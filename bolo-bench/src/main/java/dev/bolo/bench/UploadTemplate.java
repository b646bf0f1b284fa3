package dev.bolo.bench;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The upload the gateway load sends: one multipart body of a WAV note whose samples hold a
 * 24-character placeholder, where each request writes an id of its own, so every upload is new work
 * for the gateway and the WAV header stays valid.
 */
final class UploadTemplate {

  static final String BOUNDARY = "bolo-bench-boundary-7MA4YWxkTrZu0gW";
  static final String CONTENT_TYPE = "multipart/form-data; boundary=" + BOUNDARY;

  /** The placeholder's length: what each request's id must measure. */
  static final int ID_LENGTH = 24;

  private static final String PLACEHOLDER = "@".repeat(ID_LENGTH);

  private UploadTemplate() {}

  /** A multipart upload of one WAV note of {@code noteBytes} whose samples hold the placeholder. */
  static byte[] body(int noteBytes) {
    byte[] wav = BenchNotes.wav(noteBytes);
    byte[] placeholder = PLACEHOLDER.getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(placeholder, 0, wav, 64, placeholder.length);
    String head =
        "--"
            + BOUNDARY
            + "\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n--"
            + BOUNDARY
            + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"note.wav\"\r\n"
            + "Content-Type: audio/wav\r\n\r\n";
    String tail = "\r\n--" + BOUNDARY + "--\r\n";
    ByteBuffer body =
        ByteBuffer.allocate(head.length() + wav.length + tail.length())
            .put(head.getBytes(StandardCharsets.US_ASCII))
            .put(wav)
            .put(tail.getBytes(StandardCharsets.US_ASCII));
    return body.array();
  }

  /** Where the placeholder starts in {@code body}. */
  static int placeholderAt(byte[] body) {
    byte[] placeholder = PLACEHOLDER.getBytes(StandardCharsets.US_ASCII);
    outer:
    for (int i = 0; i + placeholder.length <= body.length; i++) {
      for (int j = 0; j < placeholder.length; j++) {
        if (body[i + j] != placeholder[j]) {
          continue outer;
        }
      }
      return i;
    }
    throw new IllegalArgumentException("placeholder not found");
  }
}
