package dev.bolo.server.audio;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * A request body that must keep a minimum rate: after each window the bytes received in it must be
 * at least {@code minBytesPerSecond × window}, or the next read fails with {@link
 * TooSlowException}. A body that falls silent is the idle timeout's business (the handler sets the
 * connection's idle timeout to the same window while it reads). Not thread safe: one reader.
 */
final class MinimumRateInputStream extends FilterInputStream {

  private final long minBytesPerWindow;
  private final long windowNanos;
  private final LongSupplier nanoTime;
  private long windowStart;
  private long bytesInWindow;

  MinimumRateInputStream(
      InputStream in, long minBytesPerSecond, Duration window, LongSupplier nanoTime) {
    super(in);
    this.windowNanos = window.toNanos();
    this.minBytesPerWindow = (long) ((double) minBytesPerSecond * windowNanos / 1e9);
    this.nanoTime = nanoTime;
    this.windowStart = nanoTime.getAsLong();
  }

  @Override
  public int read() throws IOException {
    int b = super.read();
    count(b < 0 ? 0 : 1);
    return b;
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    int n = super.read(buffer, offset, length);
    count(Math.max(n, 0));
    return n;
  }

  private void count(int n) throws TooSlowException {
    bytesInWindow += n;
    long now = nanoTime.getAsLong();
    if (now - windowStart < windowNanos) {
      return;
    }
    // Compare the average over the elapsed windows with the minimum.
    long elapsed = now - windowStart;
    long required = (long) ((double) minBytesPerWindow * elapsed / windowNanos);
    if (bytesInWindow < required) {
      throw new TooSlowException(bytesInWindow, elapsed);
    }
    windowStart = now;
    bytesInWindow = 0;
  }

  /** The body arrived slower than the minimum rate. */
  static final class TooSlowException extends IOException {
    private static final long serialVersionUID = 1L;

    TooSlowException(long bytes, long nanos) {
      super(bytes + " bytes in " + nanos / 1_000_000 + " ms");
    }
  }
}
