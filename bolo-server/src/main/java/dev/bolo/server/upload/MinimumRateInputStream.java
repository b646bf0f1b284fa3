package dev.bolo.server.upload;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * A request body that must keep a minimum rate: once the reader has waited a window for the client,
 * the bytes received while waiting must be at least {@code minBytesPerSecond × waited}, or the next
 * read fails with {@link TooSlowException}. Only time spent blocked in {@code read} counts: time
 * the gateway spends between reads (parsing, hashing, spooling, or waiting for a core on a busy
 * machine) is the gateway's slowness, not the client's, and must never be answered with a 408 that
 * tells the phone its link is too slow. A body that falls silent is the idle timeout's business
 * (the handler sets the connection's idle timeout to the same window while it reads). Not thread
 * safe: one reader.
 */
final class MinimumRateInputStream extends FilterInputStream {

  private final long minBytesPerWindow;
  private final long windowNanos;
  private final LongSupplier nanoTime;
  private long waitedNanos;
  private long bytesInWindow;

  MinimumRateInputStream(
      InputStream in, long minBytesPerSecond, Duration window, LongSupplier nanoTime) {
    super(in);
    this.windowNanos = window.toNanos();
    this.minBytesPerWindow = (long) ((double) minBytesPerSecond * windowNanos / 1e9);
    this.nanoTime = nanoTime;
  }

  @Override
  public int read() throws IOException {
    long start = nanoTime.getAsLong();
    int b = super.read();
    count(b < 0 ? 0 : 1, start);
    return b;
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    long start = nanoTime.getAsLong();
    int n = super.read(buffer, offset, length);
    count(Math.max(n, 0), start);
    return n;
  }

  private void count(int n, long readStarted) throws TooSlowException {
    bytesInWindow += n;
    waitedNanos += Math.max(0, nanoTime.getAsLong() - readStarted);
    if (waitedNanos < windowNanos) {
      return;
    }
    // Compare the average over the windows waited with the minimum.
    long required = (long) ((double) minBytesPerWindow * waitedNanos / windowNanos);
    if (bytesInWindow < required) {
      throw new TooSlowException(bytesInWindow, waitedNanos);
    }
    waitedNanos = 0;
    bytesInWindow = 0;
  }

  /** The body arrived slower than the minimum rate. */
  static final class TooSlowException extends IOException {
    private static final long serialVersionUID = 1L;

    TooSlowException(long bytes, long nanos) {
      super(bytes + " bytes in " + nanos / 1_000_000 + " ms of waiting for them");
    }
  }
}
