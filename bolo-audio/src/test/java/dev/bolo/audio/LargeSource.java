package dev.bolo.audio;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A large note that is never in memory: real head and tail bytes around a run of zeros, counting
 * every byte read, to show a measurement reads only what it needs.
 */
final class LargeSource implements SeekableSource {

  private final byte[] head;
  private final long zeros;
  private final byte[] tail;
  private final AtomicLong bytesRead = new AtomicLong();

  LargeSource(byte[] head, long zeros, byte[] tail) {
    this.head = head;
    this.zeros = zeros;
    this.tail = tail;
  }

  long bytesRead() {
    return bytesRead.get();
  }

  @Override
  public long size() {
    return head.length + zeros + tail.length;
  }

  @Override
  public int read(long position, byte[] into, int offset, int length) {
    int done = 0;
    while (done < length && position + done < size()) {
      long at = position + done;
      if (at < head.length) {
        into[offset + done] = head[(int) at];
      } else if (at < head.length + zeros) {
        into[offset + done] = 0;
      } else {
        into[offset + done] = tail[(int) (at - head.length - zeros)];
      }
      done++;
    }
    bytesRead.addAndGet(done);
    return done;
  }
}
