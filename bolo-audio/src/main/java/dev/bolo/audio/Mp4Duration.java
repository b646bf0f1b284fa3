package dev.bolo.audio;

import org.jspecify.annotations.Nullable;

/**
 * An MP4/M4A note's length from the movie header ({@code mvhd}) or, when that says 0, the sound
 * track's media header ({@code mdhd}); a fragmented MP4 (Safari's MediaRecorder) from {@code mehd}
 * or else the sum of its fragments' sample durations ({@code trun}). The {@code moov} box may come
 * before or after the media data ({@code mdat}); boxes are skipped by their sizes (32- or 64-bit),
 * never read whole.
 */
final class Mp4Duration {

  /** Top-level boxes of real files number a handful; a box per 8 bytes is the hostile limit. */
  private static final int MAX_BOXES = 100_000;

  private Mp4Duration() {}

  /** A box's type and where its payload lies. */
  private record Box(String type, long payload, long end) {}

  /** A time scale and a duration in its units; duration -1 when unknown. */
  private record Header(long timescale, long duration) {}

  /** What the moov box says about the length. */
  private record Movie(
      Header movie,
      @Nullable Header sound,
      long soundTrackId,
      long fragmentDuration,
      long defaultSampleDuration) {

    /** The length in a header, or null when only the fragments can tell (fragmented MP4). */
    @Nullable Measurement fromHeaders() {
      if (movie.duration() > 0) {
        return millis(movie.duration(), movie.timescale());
      }
      if (sound != null && sound.duration() > 0) {
        return millis(sound.duration(), sound.timescale());
      }
      if (fragmentDuration > 0) {
        return millis(fragmentDuration, movie.timescale());
      }
      return null;
    }

    long soundTimescale() {
      return sound != null ? sound.timescale() : movie.timescale();
    }
  }

  static Measurement measure(Cursor in) {
    @Nullable Movie movie = null;
    long fragmentTicks = 0;
    boolean anyFragment = false;
    long position = 0;
    for (int boxes = 0; boxes < MAX_BOXES && position + 8 <= in.size(); boxes++) {
      Box box = box(in, position, in.size());
      if (box.type().equals("moov") && movie == null) {
        movie = moov(in, box);
        @Nullable Measurement measured = movie.fromHeaders();
        if (measured != null) {
          return measured;
        }
      } else if (box.type().equals("moof") && movie != null) {
        // Fragmented MP4 (Safari's MediaRecorder, live writers): the length is in the fragments.
        fragmentTicks = add(fragmentTicks, fragmentTicks(in, box, movie));
        anyFragment = true;
      }
      position = box.end();
    }
    if (movie == null) {
      return new Measurement.Unmeasurable("an MP4 without a moov box");
    }
    if (!anyFragment) {
      return new Measurement.Unmeasurable("an MP4 with a duration of 0 and no fragments");
    }
    return millis(fragmentTicks, movie.soundTimescale());
  }

  private static Measurement millis(long duration, long timescale) {
    return new Measurement.Measured(Millis.of(duration, timescale, "the MP4 time scale"));
  }

  private static Movie moov(Cursor in, Box moov) {
    @Nullable Header movie = null;
    @Nullable Header sound = null;
    long soundTrackId = -1;
    long fragmentDuration = -1;
    @Nullable Box mvex = null;
    long position = moov.payload();
    for (int boxes = 0; boxes < MAX_BOXES && position + 8 <= moov.end(); boxes++) {
      Box box = box(in, position, moov.end());
      if (box.type().equals("mvhd")) {
        movie = header(in, box);
      } else if (box.type().equals("trak") && sound == null) {
        sound = soundTrack(in, box);
        if (sound != null) {
          soundTrackId = trackId(in, box);
        }
      } else if (box.type().equals("mvex")) {
        mvex = box;
      }
      position = box.end();
    }
    if (movie == null) {
      throw new ParseStop.Unreadable("an MP4 moov without an mvhd box");
    }
    long defaultDuration = 0;
    if (mvex != null) {
      @Nullable Box mehd = child(in, mvex, "mehd");
      if (mehd != null) {
        in.seek(mehd.payload());
        int version = in.u8();
        in.skip(3);
        fragmentDuration = version == 1 ? in.u64be() : in.u32be();
      }
      defaultDuration = defaultSampleDuration(in, mvex, soundTrackId);
    }
    return new Movie(movie, sound, soundTrackId, fragmentDuration, defaultDuration);
  }

  /** The track_ID in a trak's tkhd, or -1. */
  private static long trackId(Cursor in, Box trak) {
    @Nullable Box tkhd = child(in, trak, "tkhd");
    if (tkhd == null) {
      return -1;
    }
    in.seek(tkhd.payload());
    int version = in.u8();
    // Flags (3), then creation and modification times: 4 bytes each in version 0, 8 in 1.
    in.skip(3 + (version == 1 ? 16 : 8));
    return in.u32be();
  }

  /** The default sample duration of the sound track's trex box, or 0. */
  private static long defaultSampleDuration(Cursor in, Box mvex, long trackId) {
    long position = mvex.payload();
    for (int boxes = 0; boxes < MAX_BOXES && position + 8 <= mvex.end(); boxes++) {
      Box box = box(in, position, mvex.end());
      if (box.type().equals("trex")) {
        // Version and flags, track_ID, default sample description index, default duration.
        in.seek(box.payload() + 4);
        long id = in.u32be();
        in.skip(4);
        long duration = in.u32be();
        if (trackId < 0 || id == trackId) {
          return duration;
        }
      }
      position = box.end();
    }
    return 0;
  }

  /** The summed sample durations of the sound track's runs in one moof (ISO 14496-12 8.8). */
  private static long fragmentTicks(Cursor in, Box moof, Movie movie) {
    long ticks = 0;
    long position = moof.payload();
    for (int boxes = 0; boxes < MAX_BOXES && position + 8 <= moof.end(); boxes++) {
      Box traf = box(in, position, moof.end());
      if (traf.type().equals("traf")) {
        ticks = add(ticks, trackFragmentTicks(in, traf, movie));
      }
      position = traf.end();
    }
    return ticks;
  }

  private static long trackFragmentTicks(Cursor in, Box traf, Movie movie) {
    @Nullable Box tfhd = child(in, traf, "tfhd");
    if (tfhd == null) {
      return 0;
    }
    in.seek(tfhd.payload() + 1);
    int flags = in.u24be();
    long trackId = in.u32be();
    if (movie.soundTrackId() >= 0 && trackId != movie.soundTrackId()) {
      return 0;
    }
    long defaultDuration = movie.defaultSampleDuration();
    // Optional fields in flag order: base data offset (8), sample description index (4).
    in.skip(((flags & 0x1) != 0 ? 8 : 0) + ((flags & 0x2) != 0 ? 4 : 0));
    if ((flags & 0x8) != 0) {
      defaultDuration = in.u32be();
    }
    long ticks = 0;
    long position = traf.payload();
    for (int boxes = 0; boxes < MAX_BOXES && position + 8 <= traf.end(); boxes++) {
      Box trun = box(in, position, traf.end());
      if (trun.type().equals("trun")) {
        ticks = add(ticks, runTicks(in, trun, defaultDuration));
      }
      position = trun.end();
    }
    return ticks;
  }

  private static long runTicks(Cursor in, Box trun, long defaultDuration) {
    in.seek(trun.payload() + 1);
    int flags = in.u24be();
    long samples = in.u32be();
    // Optional data offset (4) and first sample flags (4), then one record per sample.
    in.skip(((flags & 0x1) != 0 ? 4 : 0) + ((flags & 0x4) != 0 ? 4 : 0));
    if ((flags & 0x100) == 0) {
      return multiply(samples, defaultDuration);
    }
    int fields = Integer.bitCount(flags & 0xF00);
    long recordBytes = 4L * fields;
    // Guard: the records must fit in the box; a count beyond that is a lie, not a loop to run.
    if (samples * recordBytes > trun.end() - in.position()) {
      throw new ParseStop.Unreadable(
          "an MP4 trun box claims " + samples + " samples that do not fit in it");
    }
    long ticks = 0;
    for (long i = 0; i < samples; i++) {
      long record = in.position();
      ticks = add(ticks, in.u32be());
      in.seek(record + recordBytes);
    }
    return ticks;
  }

  /** Sums of tick counts past 2^62 are no voice note's. */
  private static long add(long a, long b) {
    long sum = a + b;
    if (a < 0 || b < 0 || sum > (1L << 62)) {
      throw new ParseStop.Contradiction("MP4 fragments that add up to an absurd length");
    }
    return sum;
  }

  private static long multiply(long a, long b) {
    if (b != 0 && a > (1L << 62) / b) {
      throw new ParseStop.Contradiction("an MP4 run of " + a + " samples of " + b + " ticks each");
    }
    return a * b;
  }

  /** The media header of a {@code trak} whose handler is {@code soun}, or null. */
  private static @Nullable Header soundTrack(Cursor in, Box trak) {
    @Nullable Box mdia = child(in, trak, "mdia");
    if (mdia == null) {
      return null;
    }
    @Nullable Box hdlr = child(in, mdia, "hdlr");
    @Nullable Box mdhd = child(in, mdia, "mdhd");
    if (hdlr == null || mdhd == null) {
      return null;
    }
    // hdlr: version and flags (4), pre_defined (4), then the handler type.
    in.seek(hdlr.payload() + 8);
    if (hdlr.end() - hdlr.payload() < 12 || !in.fourcc().equals("soun")) {
      return null;
    }
    return header(in, mdhd);
  }

  private static @Nullable Box child(Cursor in, Box parent, String type) {
    long position = parent.payload();
    for (int boxes = 0; boxes < MAX_BOXES && position + 8 <= parent.end(); boxes++) {
      Box box = box(in, position, parent.end());
      if (box.type().equals(type)) {
        return box;
      }
      position = box.end();
    }
    return null;
  }

  /** An {@code mvhd} or {@code mdhd}: the same layout up to the duration (ISO 14496-12 8.2.2). */
  private static Header header(Cursor in, Box box) {
    in.seek(box.payload());
    int version = in.u8();
    in.skip(3);
    long timescale;
    long duration;
    if (version == 1) {
      in.skip(16);
      timescale = in.u32be();
      duration = in.u64be();
    } else {
      in.skip(8);
      timescale = in.u32be();
      duration = in.u32be();
      // All ones is how version 0 says "unknown".
      duration = duration == 0xFFFF_FFFFL ? -1 : duration;
    }
    if (in.position() > box.end()) {
      throw new ParseStop.Unreadable("an MP4 " + box.type() + " box too short for its fields");
    }
    if (timescale == 0) {
      throw new ParseStop.Contradiction("the MP4 " + box.type() + " box has a time scale of 0");
    }
    return new Header(timescale, duration);
  }

  /** The box at {@code at}, its end clamped to {@code limit} (a cut-off file). */
  private static Box box(Cursor in, long at, long limit) {
    in.seek(at);
    long size = in.u32be();
    String type = in.fourcc();
    long header = 8;
    if (size == 1) {
      size = in.u64be();
      header = 16;
      if (size < 0) {
        throw new ParseStop.Unreadable("an MP4 " + type + " box larger than 2^63 bytes");
      }
    } else if (size == 0) {
      // Size 0: the box runs to the end of the file (or of its parent).
      size = limit - at;
    }
    if (size < header) {
      throw new ParseStop.Unreadable(
          "an MP4 " + type + " box at byte " + at + " claims " + size + " bytes");
    }
    long end = size > limit - at ? limit : at + size;
    return new Box(type, at + header, end);
  }
}
