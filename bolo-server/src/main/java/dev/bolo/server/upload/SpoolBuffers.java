package dev.bolo.server.upload;

import java.nio.ByteBuffer;

/**
 * The direct buffers that spool writes gather in, reused. Writing a heap buffer to a file makes the
 * JDK copy it into a fresh native buffer first: measured with 200 × 25 MB uploads, that copy and
 * its page faults took a fifth of the gateway's CPU. Gathering the bytes here instead costs one
 * plain copy and writes 256 KiB per system call rather than one network read's worth.
 *
 * <p>A buffer only ever carries bytes to the file of the upload that holds it, from its start to
 * its position; what an earlier upload left in it is never read. At most {@link #MAX_POOLED} are
 * kept (8 MiB outside the heap); more uploads spooling at once allocate their own.
 *
 * <p>One pool per upload reader, made with it: two gateways in one JVM share none. Thread safe.
 */
final class SpoolBuffers {

  static final int SIZE = 256 * 1024;

  private static final int MAX_POOLED = 32;

  private final BoundedPool<ByteBuffer> pool =
      new BoundedPool<>(MAX_POOLED, () -> ByteBuffer.allocateDirect(SIZE));

  /** An empty buffer of {@link #SIZE} bytes, the caller's until {@link #give}n back. */
  ByteBuffer take() {
    return pool.take().clear();
  }

  /** Returns a buffer taken from here; the caller no longer touches it. */
  void give(ByteBuffer buffer) {
    pool.give(buffer);
  }
}
