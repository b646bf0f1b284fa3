package dev.bolo.server.upload;

/**
 * The 64 KiB heap arrays a note's bytes pass through on their way in (the multipart read) and out
 * (gathered writes to a plain-HTTP provider), reused. Each lives only while one thread reads into
 * it or writes from it; allocated afresh per note they were about half of what a 10 KB note
 * allocated, and at 2,000 notes in flight on a 256 MB heap the young collections that followed
 * promoted notes still waiting for their provider, and the heap filled with them.
 *
 * <p>A holder only ever uses an array from its start up to what it wrote there itself; what an
 * earlier holder left in it is never read. A holder gives an array back only when nothing of its
 * own refers to it any more, and never one that another thread might still touch (an array whose
 * use ended in a failure is simply dropped). At most {@link #MAX_POOLED} are kept (4 MiB); beyond
 * that, arrays are allocated and left to the collector.
 *
 * <p>The composition root makes one pool per gateway and hands it to the upload reader and the
 * provider sockets: two gateways in one JVM share none. Thread safe.
 */
public final class TransferBuffers {

  /** Every array's length. */
  public static final int SIZE = 64 * 1024;

  private static final int MAX_POOLED = 64;

  private final BoundedPool<byte[]> pool = new BoundedPool<>(MAX_POOLED, () -> new byte[SIZE]);

  /** An array of {@link #SIZE} bytes, the caller's until {@link #give}n back. */
  public byte[] take() {
    return pool.take();
  }

  /** Returns an array from {@link #take}; the caller and everything it made no longer touch it. */
  public void give(byte[] buffer) {
    if (buffer.length != SIZE) {
      throw new IllegalArgumentException("not a transfer buffer: " + buffer.length + " bytes");
    }
    pool.give(buffer);
  }
}
