package dev.bolo.server.http;

import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;

/**
 * What is left of a request body after its answer was sent: read and thrown away up to a bound. A
 * phone that sees a connection reset instead of its answer would resend the same doomed upload; one
 * that reads the answer does not. Thread safe (stateless).
 */
final class UnreadBody {

  private static final int BUFFER_BYTES = 64 * 1024;

  private UnreadBody() {}

  /**
   * Reads and discards what the client is still sending, at most about {@code limitBytes}; the
   * caller answered already and closes the connection after it.
   */
  static void discard(Context ctx, long limitBytes) {
    try (InputStream in = ctx.req().getInputStream()) {
      byte[] sink = new byte[BUFFER_BYTES];
      long discarded = 0;
      int n;
      while (discarded < limitBytes && (n = in.read(sink)) != -1) {
        discarded += n;
      }
    } catch (IOException e) {
      // The client stopped sending; it has its answer or is gone.
    }
  }
}
