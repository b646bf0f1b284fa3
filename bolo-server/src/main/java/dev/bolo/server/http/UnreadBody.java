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

  /**
   * The most read after any answer, whatever the body's limit: one note of the former 25 MiB limit
   * and its form. Notes may now be hundreds of megabytes; reading that much of a refused body (one
   * without a valid token, say) would hold a connection for minutes for nothing, while a phone
   * sending a note this long reads its answer early anyway.
   */
  static final long MAX_DISCARD_BYTES = 26L * 1024 * 1024;

  private UnreadBody() {}

  /**
   * Reads and discards what the client is still sending, at most about {@code limitBytes} (and
   * never more than {@link #MAX_DISCARD_BYTES}); the caller answered already and closes the
   * connection after it.
   */
  static void discard(Context ctx, long limitBytes) {
    try (InputStream in = ctx.req().getInputStream()) {
      byte[] sink = new byte[BUFFER_BYTES];
      long discarded = 0;
      int n;
      long bound = Math.min(limitBytes, MAX_DISCARD_BYTES);
      while (discarded < bound && (n = in.read(sink)) != -1) {
        discarded += n;
      }
    } catch (IOException e) {
      // The client stopped sending; it has its answer or is gone.
    }
  }
}
