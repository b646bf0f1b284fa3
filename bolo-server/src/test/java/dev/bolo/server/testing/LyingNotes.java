package dev.bolo.server.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * A minute of real audio (1.3 s of speech, then silence) in every container bolo-audio measures,
 * with the container's own length patched to claim one second: what a device would send to be
 * charged a second for a minute. Every other byte is as ffmpeg wrote it ({@code
 * src/test/resources/minute-notes/make-minute-notes.sh}), so FFmpeg and a provider still hear the
 * whole minute. Stateless.
 */
public final class LyingNotes {

  /** How long each note plays. */
  public static final long MINUTE_MILLIS = 60_000;

  /** The containers, each with the header field its lie patches. */
  public enum Container {
    /** A data chunk of one second, then a second data chunk of the minute, which FFmpeg plays. */
    WAV,
    /** The Xing header's frame count. */
    MP3,
    /** The movie header's ({@code mvhd}) duration. */
    M4A,
    /** The sample-rate index of the first eight ADTS frames: 8 kHz, where the rest are 16. */
    AAC,
    /** The last page's granule position (and the page's CRC). */
    OGG,
    /** The Info's Duration and the last cluster's Timecode. */
    WEBM,
    /** STREAMINFO's total samples. */
    FLAC;

    /** The file's extension, and the name of its honest twin's resource. */
    public String extension() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  private LyingNotes() {}

  /** The minute-long note in {@code container}, its header claiming one second. */
  public static byte[] claimingOneSecond(Container container) {
    if (container == Container.WAV) {
      return wavWithAOneSecondDataChunkFirst();
    }
    byte[] note = resource("/minute-notes/minute." + container.extension());
    switch (container) {
      case MP3 -> xingFrames(note);
      case M4A -> mvhdDuration(note);
      case AAC -> adtsRates(note);
      case OGG -> lastGranule(note);
      case WEBM -> webmLengths(note);
      case FLAC -> streamInfoSamples(note);
      case WAV -> throw new AssertionError("built above");
    }
    return note;
  }

  /**
   * RIFF allows several chunks; bolo-audio measures the first {@code data} chunk, FFmpeg plays the
   * last one. The first holds the speech's first second, the last the whole minute.
   */
  private static byte[] wavWithAOneSecondDataChunkFirst() {
    byte[] speech = resource("/audio/pcm16-mono-16k.wav");
    int data = indexOf(speech, "data", 12);
    int speechBytes = ByteBuffer.wrap(speech, data + 4, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
    byte[] minute = new byte[(int) (MINUTE_MILLIS * 32)];
    System.arraycopy(speech, data + 8, minute, 0, speechBytes);
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.writeBytes(ascii("WAVE"));
    body.writeBytes(ascii("fmt "));
    body.writeBytes(
        ByteBuffer.allocate(20)
            .order(ByteOrder.LITTLE_ENDIAN)
            .putInt(16)
            .putShort((short) 1)
            .putShort((short) 1)
            .putInt(16_000)
            .putInt(32_000)
            .putShort((short) 2)
            .putShort((short) 16)
            .array());
    chunk(body, "data", Arrays.copyOf(minute, 32_000));
    chunk(body, "data", minute);
    ByteArrayOutputStream riff = new ByteArrayOutputStream();
    chunk(riff, "RIFF", body.toByteArray());
    return riff.toByteArray();
  }

  private static void chunk(ByteArrayOutputStream out, String id, byte[] payload) {
    out.writeBytes(ascii(id));
    out.writeBytes(
        ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(payload.length).array());
    out.writeBytes(payload);
  }

  /** Xing/Info: "Xing", flags (bit 0: frames follow), frame count, all big-endian. */
  private static void xingFrames(byte[] note) {
    int xing = indexOf(note, "Xing", 0, "Info");
    ByteBuffer header = ByteBuffer.wrap(note);
    if ((header.getInt(xing + 4) & 1) == 0) {
      throw new IllegalStateException("the Xing header has no frame count");
    }
    header.putInt(xing + 8, header.getInt(xing + 8) / 60);
  }

  /** mvhd version 0: version and flags, creation, modification, time scale, duration. */
  private static void mvhdDuration(byte[] note) {
    int mvhd = indexOf(note, "mvhd", 0);
    ByteBuffer header = ByteBuffer.wrap(note);
    if (note[mvhd + 4] != 0) {
      throw new IllegalStateException("an mvhd of version " + note[mvhd + 4]);
    }
    header.putInt(mvhd + 20, header.getInt(mvhd + 16));
  }

  /** Eight frames of 1024 samples at 8 kHz make the 1.024 s the walk counts before the rest. */
  private static void adtsRates(byte[] note) {
    int at = 0;
    for (int frame = 0; frame < 8; frame++) {
      if ((note[at] & 0xff) != 0xff || (note[at + 1] & 0xf6) != 0xf0) {
        throw new IllegalStateException("no ADTS frame at " + at);
      }
      // Sampling frequency index 11 (8000 Hz) in bits 5..2 of the third byte.
      note[at + 2] = (byte) ((note[at + 2] & ~0x3c) | 11 << 2);
      at += (note[at + 3] & 0x3) << 11 | (note[at + 4] & 0xff) << 3 | (note[at + 5] & 0xff) >>> 5;
    }
  }

  /** The last page: granule (8 bytes LE at 6), CRC (4 bytes LE at 22) over the whole page. */
  private static void lastGranule(byte[] note) {
    int head = indexOf(note, "OpusHead", 0);
    int preSkip =
        ByteBuffer.wrap(note, head + 10, 2).order(ByteOrder.LITTLE_ENDIAN).getShort() & 0xffff;
    int page = lastIndexOf(note, "OggS");
    ByteBuffer bytes = ByteBuffer.wrap(note).order(ByteOrder.LITTLE_ENDIAN);
    bytes.putLong(page + 6, preSkip + 48_000L);
    bytes.putInt(page + 22, 0);
    bytes.putInt(page + 22, oggCrc(note, page, note.length));
  }

  /** Ogg's CRC-32: polynomial 0x04C11DB7, initial 0, not reflected (RFC 3533). */
  private static int oggCrc(byte[] bytes, int from, int to) {
    int crc = 0;
    for (int i = from; i < to; i++) {
      crc ^= (bytes[i] & 0xff) << 24;
      for (int bit = 0; bit < 8; bit++) {
        crc = crc < 0 ? crc << 1 ^ 0x04C11DB7 : crc << 1;
      }
    }
    return crc;
  }

  /**
   * Duration (ID 0x4489, an 8-byte float of timecode units, 1 ms as ffmpeg writes them) becomes
   * 1000; the last Cluster's (ID 0x1F43B675) Timecode (ID 0xE7, its first child) becomes 0, so its
   * blocks, at most a second long, end within the first second.
   */
  private static void webmLengths(byte[] note) {
    int duration = indexOf(note, new byte[] {0x44, (byte) 0x89, (byte) 0x88}, 0);
    ByteBuffer.wrap(note).putDouble(duration + 3, 1000.0);
    int cluster = lastIndexOf(note, new byte[] {0x1f, 0x43, (byte) 0xb6, 0x75});
    int sizeLength = Integer.numberOfLeadingZeros(note[cluster + 4] & 0xff) - 23;
    int timecode = cluster + 4 + sizeLength;
    if ((note[timecode] & 0xff) != 0xe7) {
      throw new IllegalStateException("the last cluster does not start with its Timecode");
    }
    int valueLength = note[timecode + 1] & 0x7f;
    Arrays.fill(note, timecode + 2, timecode + 2 + valueLength, (byte) 0);
  }

  /** STREAMINFO: 20 bits of rate, 3 of channels, 5 of depth, 36 of total samples, at byte 18. */
  private static void streamInfoSamples(byte[] note) {
    ByteBuffer header = ByteBuffer.wrap(note);
    long packed = header.getLong(18);
    long rate = packed >>> 44;
    header.putLong(18, (packed & ~0xF_FFFF_FFFFL) | rate);
  }

  private static int indexOf(byte[] bytes, String text, int from, String... others) {
    int at = indexOf(bytes, ascii(text), from);
    for (String other : others) {
      if (at < 0) {
        at = indexOf(bytes, ascii(other), from);
      }
    }
    if (at < 0) {
      throw new IllegalStateException(text + " not found");
    }
    return at;
  }

  private static int indexOf(byte[] bytes, byte[] wanted, int from) {
    for (int i = from; i + wanted.length <= bytes.length; i++) {
      if (Arrays.equals(bytes, i, i + wanted.length, wanted, 0, wanted.length)) {
        return i;
      }
    }
    return -1;
  }

  private static int lastIndexOf(byte[] bytes, String text) {
    return lastIndexOf(bytes, ascii(text));
  }

  private static int lastIndexOf(byte[] bytes, byte[] wanted) {
    for (int i = bytes.length - wanted.length; i >= 0; i--) {
      if (Arrays.equals(bytes, i, i + wanted.length, wanted, 0, wanted.length)) {
        return i;
      }
    }
    throw new IllegalStateException("not found");
  }

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] resource(String name) {
    try (InputStream in =
        Objects.requireNonNull(LyingNotes.class.getResourceAsStream(name), name)) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
