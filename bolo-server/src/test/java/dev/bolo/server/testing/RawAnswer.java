package dev.bolo.server.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * One HTTP/1.1 answer read off a socket by hand, for tests whose client must do what no HTTP client
 * does (pipeline, trickle a body, keep a refused connection open): its status, head and body. Reads
 * answers that carry a {@code Content-Length}, as the gateway's errors and files do.
 *
 * @param head the status line and headers, CRLF-separated
 */
public record RawAnswer(int status, String head, String body) {

  /** CR LF CR LF, the blank line ending a head, as four bytes. */
  private static final int END_OF_HEAD = 0x0D0A0D0A;

  /**
   * Reads the next answer from {@code in} (buffered by the caller for speed).
   *
   * @throws IOException when the connection ends before a whole answer
   */
  public static RawAnswer read(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int lastFour = 0;
    while (lastFour != END_OF_HEAD) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("connection ended after " + head.size() + " bytes of an answer");
      }
      head.write(b);
      lastFour = (lastFour << 8) | b;
    }
    String text = head.toString(StandardCharsets.ISO_8859_1);
    RawAnswer headOnly = new RawAnswer(Integer.parseInt(text.substring(9, 12)), text, "");
    String length = headOnly.header("Content-Length");
    byte[] body = in.readNBytes(length == null ? 0 : Integer.parseInt(length));
    return new RawAnswer(headOnly.status(), text, new String(body, StandardCharsets.UTF_8));
  }

  /** The value of header {@code name} (any case), or null. */
  public @Nullable String header(String name) {
    String prefix = name.toLowerCase(Locale.ROOT) + ":";
    for (String line : head.split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith(prefix)) {
        return line.substring(prefix.length()).trim();
      }
    }
    return null;
  }
}
