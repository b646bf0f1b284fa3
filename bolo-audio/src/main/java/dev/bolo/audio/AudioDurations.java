package dev.bolo.audio;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.Optional;

/**
 * Measures how long a note plays from its container's own structure, never from a length the sender
 * states: WAV from the sample rate, block size and data size; MP3 from its Xing/Info/VBRI header or
 * its frames; MP4/M4A from {@code mvhd}/{@code mdhd}; Ogg Opus and Vorbis from the last page's
 * granule position; FLAC from STREAMINFO; WebM from its Duration and last cluster; AAC in ADTS from
 * its frames.
 *
 * <p>Only the headers are read, through {@link SeekableSource}, so a note of many megabytes on disk
 * costs a few small reads (the frame walks of MP3 without a Xing header and of ADTS read every
 * frame header). Hostile notes are expected: every loop is bounded, no buffer is sized by a header,
 * and the answer is always one of the {@link Measurement}s; only a failure of the source itself
 * escapes, as {@link IOException}.
 *
 * <p>A measured length is also checked against the note's size: a compressed note cannot hold far
 * more bytes per second than its codecs produce (a header claiming a 25 MB MP3 lasts 1 ms
 * contradicts the bytes), nor fewer than 1 byte per second.
 *
 * <p>Thread safe: stateless.
 */
public final class AudioDurations {

  private AudioDurations() {}

  /** Recognises the container from the first bytes, then measures it. */
  public static Measurement measure(SeekableSource source) throws IOException {
    byte[] head = new byte[AudioContainer.SNIFF_BYTES];
    int length = source.read(0, head, 0, head.length);
    Optional<AudioContainer> container = AudioContainer.sniff(head, Math.max(0, length));
    if (container.isEmpty()) {
      return new Measurement.Unmeasurable("not a recognised audio container");
    }
    return measure(container.get(), source);
  }

  /** Measures a note already recognised as {@code container}. */
  public static Measurement measure(AudioContainer container, SeekableSource source)
      throws IOException {
    try {
      return measureUnchecked(container, source);
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  /** Measures a note in a file. */
  public static Measurement measure(AudioContainer container, Path file) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      return measure(container, SeekableSource.of(channel));
    }
  }

  private static Measurement measureUnchecked(AudioContainer container, SeekableSource source) {
    Objects.requireNonNull(container, "container");
    Cursor in = new Cursor(Objects.requireNonNull(source, "source"));
    try {
      Measurement measurement =
          switch (container) {
            case WAV -> WavDuration.measure(in);
            case MP3 -> Mp3Duration.measure(in);
            case MP4 -> Mp4Duration.measure(in);
            case OGG -> OggDuration.measure(in);
            case WEBM -> MatroskaDuration.measure(in);
            case FLAC -> FlacDuration.measure(in);
            case AAC -> AdtsDuration.measure(in);
          };
      return Plausibility.check(container, in.size(), measurement);
    } catch (ParseStop stop) {
      return stop.measurement();
    }
  }
}
