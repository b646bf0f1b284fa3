package dev.bolo.client;

import dev.bolo.audio.AudioDurations;
import dev.bolo.audio.Measurement;
import dev.bolo.audio.SeekableSource;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;

/**
 * Reads a note's duration from its container with the gateway's own rules ({@code bolo-audio}: WAV,
 * MP3, M4A, Ogg, WebM, FLAC, AAC), so that the read timeout scales with every note, not only WAV.
 * Returns -1 when the container does not say or contradicts itself: the timeout then stays at its
 * base, and the gateway judges the audio.
 */
final class NoteLength {

  private NoteLength() {}

  /** The duration in milliseconds, or -1 when unknown. Only the headers are read. */
  static long millis(SeekableSource source) throws IOException {
    Measurement measurement;
    try {
      measurement = AudioDurations.measure(source);
    } catch (RuntimeException bug) {
      // The length only sizes a timeout: a parser bug must not stop the note from being sent.
      return -1;
    }
    return measurement instanceof Measurement.Measured measured ? measured.millis() : -1;
  }

  /**
   * A stream the app can open again, read as a {@link SeekableSource}: reads move forward through
   * one open stream, and a read behind it opens the stream again. Headers sit at both ends of some
   * containers (M4A's {@code moov}, Ogg's last page), so a measure opens it a few times.
   */
  static final class Reopening implements SeekableSource, Closeable {
    private final VoiceNote.AudioOpener opener;
    private final long size;
    private InputStream in;
    private long position;

    Reopening(VoiceNote.AudioOpener opener, long size) throws IOException {
      this.opener = opener;
      this.size = size;
      this.in = open(opener);
    }

    @Override
    public long size() {
      return size;
    }

    @Override
    public int read(long at, byte[] into, int offset, int length) throws IOException {
      if (at < 0 || at >= size) {
        return 0;
      }
      if (at < position) {
        in.close();
        in = open(opener);
        position = 0;
      }
      in.skipNBytes(at - position);
      position = at;
      int n = in.readNBytes(into, offset, (int) Math.min(length, size - at));
      position += n;
      return n;
    }

    private static InputStream open(VoiceNote.AudioOpener opener) throws IOException {
      InputStream in = opener.open();
      if (in == null) {
        throw new IOException("the audio opener returned no stream");
      }
      return in;
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}
