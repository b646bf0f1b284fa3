package dev.bolo.audio;

import org.jspecify.annotations.Nullable;

/**
 * An MP4/M4A note's length from the movie header ({@code mvhd}) or, when that says 0, the sound
 * track's media header ({@code mdhd}). The {@code moov} box may come before or after the media data
 * ({@code mdat}); boxes are skipped by their sizes (32- or 64-bit), never read whole.
 */
final class Mp4Duration {

  /** Top-level boxes of real files number a handful; a box per 8 bytes is the hostile limit. */
  private static final int MAX_BOXES = 100_000;

  private Mp4Duration() {}

  /** A box's type and where its payload lies. */
  private record Box(String type, long payload, long end) {}

  /** A time scale and a duration in its units; duration -1 when unknown. */
  private record Header(long timescale, long duration) {}

  static Measurement measure(Cursor in) {
    long position = 0;
    for (int boxes = 0; boxes < MAX_BOXES && position + 8 <= in.size(); boxes++) {
      Box box = box(in, position, in.size());
      if (box.type().equals("moov")) {
        return moov(in, box);
      }
      position = box.end();
    }
    return new Measurement.Unmeasurable("an MP4 without a moov box");
  }

  private static Measurement moov(Cursor in, Box moov) {
    @Nullable Header movie = null;
    @Nullable Header sound = null;
    long position = moov.payload();
    for (int boxes = 0; boxes < MAX_BOXES && position + 8 <= moov.end(); boxes++) {
      Box box = box(in, position, moov.end());
      if (box.type().equals("mvhd")) {
        movie = header(in, box);
      } else if (box.type().equals("trak") && sound == null) {
        sound = soundTrack(in, box);
      }
      position = box.end();
    }
    if (movie == null) {
      return new Measurement.Unmeasurable("an MP4 moov without an mvhd box");
    }
    Header chosen = movie.duration() > 0 || sound == null ? movie : sound;
    if (chosen.duration() < 0) {
      return new Measurement.Unmeasurable("an MP4 whose duration is marked unknown");
    }
    if (chosen.duration() == 0) {
      // Fragmented MP4 (moof boxes) keeps its length out of the headers.
      return new Measurement.Unmeasurable("an MP4 with a duration of 0 in its headers");
    }
    return new Measurement.Measured(
        Millis.of(chosen.duration(), chosen.timescale(), "the MP4 time scale"));
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
