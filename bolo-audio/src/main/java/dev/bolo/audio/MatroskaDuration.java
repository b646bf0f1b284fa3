package dev.bolo.audio;

import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A WebM/Matroska note's length: the Segment Info's Duration × TimecodeScale when present, and the
 * end of the last block (the last cluster's timecode plus its last block's relative timecode and
 * the gap to the block before it). Browsers' MediaRecorder writes no Duration, so the blocks are
 * often all there is. Clusters of known size are skipped whole and only the last one is read;
 * clusters of unknown size (live writers) are walked block header by block header.
 */
final class MatroskaDuration {

  private static final long EBML = 0x1A45DFA3L;
  private static final long SEGMENT = 0x18538067L;
  private static final long INFO = 0x1549A966L;
  private static final long TIMECODE_SCALE = 0x2AD7B1L;
  private static final long DURATION = 0x4489L;
  private static final long CLUSTER = 0x1F43B675L;
  private static final long TIMECODE = 0xE7L;
  private static final long SIMPLE_BLOCK = 0xA3L;
  private static final long BLOCK_GROUP = 0xA0L;
  private static final long BLOCK = 0xA1L;
  private static final long BLOCK_DURATION = 0x9BL;

  /** What may sit inside a Cluster; any other ID ends a cluster of unknown size. */
  private static final Set<Long> CLUSTER_CHILDREN =
      Set.of(TIMECODE, SIMPLE_BLOCK, BLOCK_GROUP, 0xA7L, 0xABL, 0x5854L, 0xAFL, 0xECL, 0xBFL);

  private static final long UNKNOWN_SIZE = -1;

  /** Matroska's default: timecodes in milliseconds (1,000,000 ns). */
  private static final long DEFAULT_SCALE_NS = 1_000_000;

  /** Elements before the Segment: the EBML header, perhaps Void; more is not a WebM file. */
  private static final int MAX_LEADING_ELEMENTS = 16;

  /** Every element takes at least 2 bytes; this only guards against a bug looping in place. */
  private static final long MAX_ELEMENTS = 50_000_000;

  /** The last block lasts as long as the gap before it, up to this many milliseconds. */
  private static final double MAX_LAST_BLOCK_MS = 1000;

  private MatroskaDuration() {}

  private record Element(long id, long payload, long size) {
    boolean isSizeKnown() {
      return size != UNKNOWN_SIZE;
    }

    long end(long limit) {
      return isSizeKnown() ? Math.min(limit, payload + size) : limit;
    }
  }

  /** What the walk learnt so far. */
  private static final class Scan {
    long scaleNs = DEFAULT_SCALE_NS;
    double durationTicks = Double.NaN;
    boolean anyBlock;
    long lastTicks = Long.MIN_VALUE;
    long lastEndTicks = Long.MIN_VALUE;
    long elements;

    void block(long ticks, long previousInCluster, long durationTicks) {
      anyBlock = true;
      long gap = durationTicks >= 0 ? durationTicks : 0;
      if (durationTicks < 0 && previousInCluster != Long.MIN_VALUE && ticks > previousInCluster) {
        gap = ticks - previousInCluster;
      }
      gap = Math.min(gap, (long) (MAX_LAST_BLOCK_MS * 1e6 / scaleNs));
      if (ticks >= lastTicks) {
        lastTicks = ticks;
        lastEndTicks = Math.max(lastEndTicks, ticks + gap);
      }
    }

    void count() {
      if (++elements > MAX_ELEMENTS) {
        throw new ParseStop.Unreadable("a WebM file with more than " + MAX_ELEMENTS + " elements");
      }
    }
  }

  static Measurement measure(Cursor in) {
    Element header = element(in, 0);
    if (header.id() != EBML || !header.isSizeKnown()) {
      throw new ParseStop.Unreadable("no EBML header");
    }
    long position = header.end(in.size());
    @Nullable Element segment = null;
    for (int i = 0; i < MAX_LEADING_ELEMENTS && position + 2 <= in.size(); i++) {
      Element element = element(in, position);
      if (element.id() == SEGMENT) {
        segment = element;
        break;
      }
      if (!element.isSizeKnown()) {
        break;
      }
      position = element.end(in.size());
    }
    if (segment == null) {
      return new Measurement.Unmeasurable("a WebM file without a Segment");
    }
    Scan scan = new Scan();
    long segmentEnd = segment.end(in.size());
    @Nullable Element lastSizedCluster = null;
    position = segment.payload();
    while (position + 2 <= segmentEnd) {
      scan.count();
      Element element = element(in, position);
      if (element.id() == CLUSTER && element.isSizeKnown()) {
        lastSizedCluster = element;
        position = element.end(segmentEnd);
      } else if (element.id() == CLUSTER) {
        position = cluster(in, element, segmentEnd, scan);
      } else if (!element.isSizeKnown()) {
        throw new ParseStop.Unreadable("a WebM element of unknown size that is not a Cluster");
      } else {
        if (element.id() == INFO) {
          info(in, element, segmentEnd, scan);
        }
        position = element.end(segmentEnd);
      }
    }
    if (lastSizedCluster != null) {
      cluster(in, lastSizedCluster, segmentEnd, scan);
    }
    return length(scan);
  }

  private static Measurement length(Scan scan) {
    boolean hasDuration = !Double.isNaN(scan.durationTicks);
    if (!hasDuration && !scan.anyBlock) {
      return new Measurement.Unmeasurable("a WebM file with neither a Duration nor a block");
    }
    double millis = 0;
    if (hasDuration) {
      millis = scan.durationTicks * scan.scaleNs / 1e6;
    }
    if (scan.anyBlock) {
      double blocks = (double) scan.lastEndTicks * scan.scaleNs / 1e6;
      millis = Math.max(millis, blocks);
    }
    // Beyond a year of audio the numbers are not a voice note's.
    if (!(millis >= 0 && millis < 365 * 24 * 3600e3)) {
      throw new ParseStop.Contradiction("a WebM length of " + millis + " ms is absurd");
    }
    return new Measurement.Measured((long) millis);
  }

  private static void info(Cursor in, Element info, long limit, Scan scan) {
    long end = info.end(limit);
    long position = info.payload();
    while (position + 2 <= end) {
      scan.count();
      Element element = element(in, position);
      if (!element.isSizeKnown()) {
        throw new ParseStop.Unreadable("a WebM Info child of unknown size");
      }
      if (element.id() == TIMECODE_SCALE) {
        scan.scaleNs = unsigned(in, element);
        if (scan.scaleNs <= 0) {
          throw new ParseStop.Contradiction("the WebM TimecodeScale is " + scan.scaleNs);
        }
      } else if (element.id() == DURATION) {
        double duration = floating(in, element);
        if (!(duration >= 0) || Double.isInfinite(duration)) {
          throw new ParseStop.Contradiction("the WebM Duration is " + duration);
        }
        scan.durationTicks = duration;
      }
      position = element.end(end);
    }
  }

  /** Walks one cluster; returns where it ends (for a cluster of unknown size, the next element). */
  private static long cluster(Cursor in, Element cluster, long limit, Scan scan) {
    long end = cluster.end(limit);
    long clusterTicks = 0;
    long previous = Long.MIN_VALUE;
    long position = cluster.payload();
    while (position + 2 <= end) {
      scan.count();
      Element element = element(in, position);
      if (!cluster.isSizeKnown() && !CLUSTER_CHILDREN.contains(element.id())) {
        return position;
      }
      if (!element.isSizeKnown()) {
        throw new ParseStop.Unreadable("a WebM Cluster child of unknown size");
      }
      if (element.id() == TIMECODE) {
        clusterTicks = unsigned(in, element);
      } else if (element.id() == SIMPLE_BLOCK) {
        long ticks = blockTicks(in, element, clusterTicks);
        scan.block(ticks, previous, -1);
        previous = ticks;
      } else if (element.id() == BLOCK_GROUP) {
        previous = blockGroup(in, element, end, clusterTicks, previous, scan);
      }
      position = element.end(end);
    }
    return end;
  }

  private static long blockGroup(
      Cursor in, Element group, long limit, long clusterTicks, long previous, Scan scan) {
    long end = group.end(limit);
    long ticks = Long.MIN_VALUE;
    long duration = -1;
    long position = group.payload();
    while (position + 2 <= end) {
      scan.count();
      Element element = element(in, position);
      if (!element.isSizeKnown()) {
        throw new ParseStop.Unreadable("a WebM BlockGroup child of unknown size");
      }
      if (element.id() == BLOCK) {
        ticks = blockTicks(in, element, clusterTicks);
      } else if (element.id() == BLOCK_DURATION) {
        duration = unsigned(in, element);
      }
      position = element.end(end);
    }
    if (ticks == Long.MIN_VALUE) {
      return previous;
    }
    scan.block(ticks, previous, duration);
    return ticks;
  }

  /** A block's time: the cluster's timecode plus the block's signed 16-bit relative timecode. */
  private static long blockTicks(Cursor in, Element block, long clusterTicks) {
    in.seek(block.payload());
    size(in); // the track number, a variable-length integer
    int relative = (short) in.u16be();
    // Cluster timecodes are unsigned 64-bit; past 2^62 ticks no note is real.
    if (clusterTicks < 0 || clusterTicks > (1L << 62)) {
      throw new ParseStop.Contradiction("a WebM Cluster timecode of " + clusterTicks);
    }
    return clusterTicks + relative;
  }

  private static Element element(Cursor in, long at) {
    in.seek(at);
    int first = in.u8();
    int length = Integer.numberOfLeadingZeros(first) - 23;
    // IDs are 1 to 4 bytes long (RFC 8794 5).
    if (first == 0 || length > 4) {
      throw new ParseStop.Unreadable("a broken EBML element ID at byte " + at);
    }
    long id = first;
    for (int i = 1; i < length; i++) {
      id = id << 8 | in.u8();
    }
    long size = size(in);
    return new Element(id, in.position(), size);
  }

  /** An EBML variable-length size; {@link #UNKNOWN_SIZE} when all its value bits are set. */
  private static long size(Cursor in) {
    int first = in.u8();
    if (first == 0) {
      throw new ParseStop.Unreadable("a broken EBML size at byte " + (in.position() - 1));
    }
    int length = Integer.numberOfLeadingZeros(first) - 23;
    long mask = 0xFF >>> length;
    long value = first & mask;
    boolean allOnes = value == mask;
    for (int i = 1; i < length; i++) {
      int next = in.u8();
      allOnes &= next == 0xFF;
      value = value << 8 | next;
    }
    return allOnes ? UNKNOWN_SIZE : value;
  }

  private static long unsigned(Cursor in, Element element) {
    if (element.size() > 8) {
      throw new ParseStop.Unreadable("a WebM integer of " + element.size() + " bytes");
    }
    in.seek(element.payload());
    long value = 0;
    for (int i = 0; i < element.size(); i++) {
      value = value << 8 | in.u8();
    }
    return value;
  }

  private static double floating(Cursor in, Element element) {
    in.seek(element.payload());
    if (element.size() == 4) {
      return Float.intBitsToFloat((int) in.u32be());
    }
    if (element.size() == 8) {
      return Double.longBitsToDouble(in.u64be());
    }
    if (element.size() == 0) {
      return 0;
    }
    throw new ParseStop.Unreadable("a WebM float of " + element.size() + " bytes");
  }
}
