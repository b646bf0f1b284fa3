package dev.bolo.decode;

import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Cuts a note into pieces at its pauses, as it is read: a piece ends in the middle of the first
 * pause of at least {@link Limits#shortestPause()} after speech; a piece that reaches {@link
 * Limits#longest()} without one is cut at its quietest 20 ms in its second half. Silence before the
 * speech of a piece is trimmed to {@link Limits#padding()}; a stretch without speech is no piece.
 *
 * <p>Speech is told from silence by each 20 ms frame's energy against the noise floor, which is the
 * quietest frame of the last three seconds (minimum statistics, as voice-activity detectors in
 * phones track noise): a frame is speech 10 dB above that floor, always above -35 dBFS and never
 * below -60 dBFS. In a note whose noise never falls below -35 dBFS every frame is speech and pieces
 * are cut at their quietest points.
 *
 * <p>Memory: one piece's samples at most, whatever the note's length. Not thread safe.
 */
public final class PauseSplitter {

  /** Frames per second: 20 ms frames. */
  private static final int FRAMES_PER_SECOND = 50;

  /** Frames over which the noise floor is the quietest: three seconds. */
  private static final int FLOOR_FRAMES = 3 * FRAMES_PER_SECOND;

  private static final double ABOVE_FLOOR_DB = 10;
  private static final double LOUDEST_THRESHOLD_DB = -35;
  private static final double QUIETEST_THRESHOLD_DB = -60;

  /** The energy of digital silence, instead of minus infinity. */
  private static final double SILENCE_DB = -120;

  /**
   * How a note is cut.
   *
   * @param longest the longest piece
   * @param shortestPause the shortest silence that ends a piece
   * @param padding silence kept before a piece's speech and after its end
   */
  public record Limits(Duration longest, Duration shortestPause, Duration padding) {
    public Limits {
      if (longest.compareTo(Duration.ofSeconds(1)) < 0) {
        throw new IllegalArgumentException("longest must be >= 1s: " + longest);
      }
      if (shortestPause.isNegative() || shortestPause.compareTo(longest) >= 0) {
        throw new IllegalArgumentException(
            "shortestPause must be >= 0 and shorter than longest: " + shortestPause);
      }
      if (padding.isNegative() || padding.compareTo(shortestPause) > 0) {
        throw new IllegalArgumentException(
            "padding must be >= 0 and at most shortestPause: " + padding);
      }
    }

    /** Pieces for a recogniser that hears one utterance at a time: 30 s, cut at 300 ms pauses. */
    public static Limits utterances() {
      return new Limits(Duration.ofSeconds(30), Duration.ofMillis(300), Duration.ofMillis(200));
    }
  }

  private final MonoSamples in;
  private final int frameLength;
  private final int longestFrames;
  private final int pauseFrames;
  private final int paddingFrames;

  /** The samples of the piece being gathered, from {@link #start}. */
  private final float[] buffer;

  private final double[] energy;
  private final boolean[] speech;
  private int frames;
  private long start;
  private int firstSpeech = -1;
  private int lastSpeech = -1;

  private final double[] recent = new double[FLOOR_FRAMES];
  private long framesSeen;
  private long samplesRead;
  private boolean ended;

  public PauseSplitter(MonoSamples in, Limits limits) {
    this.in = in;
    this.frameLength = Math.max(1, in.sampleRate() / FRAMES_PER_SECOND);
    this.longestFrames = Math.toIntExact(limits.longest().toMillis() * FRAMES_PER_SECOND / 1000);
    this.pauseFrames =
        Math.max(1, Math.toIntExact(limits.shortestPause().toMillis() * FRAMES_PER_SECOND / 1000));
    this.paddingFrames = Math.toIntExact(limits.padding().toMillis() * FRAMES_PER_SECOND / 1000);
    this.buffer = new float[(longestFrames + 1) * frameLength];
    this.energy = new double[longestFrames + 1];
    this.speech = new boolean[longestFrames + 1];
  }

  /**
   * The next piece, or null at the end of the note.
   *
   * @throws UndecodableAudioException when the note turns out not to be decodable audio
   * @throws IOException when its bytes cannot be read
   */
  public @Nullable Piece next() throws IOException {
    while (!ended) {
      if (!readFrame()) {
        ended = true;
        break;
      }
      int at = frames - 1;
      if (speech[at]) {
        if (firstSpeech < 0) {
          firstSpeech = at;
        }
        lastSpeech = at;
      }
      if (firstSpeech < 0) {
        // No speech yet: keep only the padding's worth of silence before it.
        if (frames > paddingFrames) {
          drop(frames - paddingFrames);
        }
      } else if (at - lastSpeech >= pauseFrames) {
        return cut(lastSpeech + 1 + pauseFrames / 2);
      } else if (frames >= longestFrames) {
        return cut(quietestFrame());
      }
    }
    if (firstSpeech < 0) {
      return null;
    }
    return cut(Math.min(frames, lastSpeech + 1 + paddingFrames));
  }

  /** Samples read from the note so far: its length once {@link #next()} has answered null. */
  public long samplesRead() {
    return samplesRead;
  }

  /** Reads one frame into the buffer; false at the end of the note. */
  private boolean readFrame() throws IOException {
    int from = frames * frameLength;
    int filled = 0;
    while (filled < frameLength) {
      int n = in.read(buffer, from + filled, frameLength - filled);
      if (n < 0) {
        break;
      }
      filled += n;
    }
    if (filled == 0) {
      return false;
    }
    samplesRead += filled;
    // A short last frame is padded with silence so that every frame has the same length.
    Arrays.fill(buffer, from + filled, from + frameLength, 0f);
    double level = levelDb(from);
    energy[frames] = level;
    speech[frames] = level > threshold(level);
    frames++;
    return true;
  }

  private double levelDb(int from) {
    double sum = 0;
    for (int i = from; i < from + frameLength; i++) {
      sum += (double) buffer[i] * buffer[i];
    }
    double meanSquare = sum / frameLength;
    return meanSquare <= 0 ? SILENCE_DB : Math.max(SILENCE_DB, 10 * Math.log10(meanSquare));
  }

  /** Remembers the frame's level and answers the level above which a frame is speech. */
  private double threshold(double level) {
    recent[(int) (framesSeen++ % FLOOR_FRAMES)] = level;
    int count = (int) Math.min(framesSeen, FLOOR_FRAMES);
    double floor = Double.MAX_VALUE;
    for (int i = 0; i < count; i++) {
      floor = Math.min(floor, recent[i]);
    }
    return Math.max(QUIETEST_THRESHOLD_DB, Math.min(LOUDEST_THRESHOLD_DB, floor + ABOVE_FLOOR_DB));
  }

  /** The quietest frame in the second half of the buffer, the later of equals. */
  private int quietestFrame() {
    int quietest = frames - 1;
    for (int i = frames - 1; i >= frames / 2; i--) {
      if (energy[i] < energy[quietest]) {
        quietest = i;
      }
    }
    return Math.max(1, quietest);
  }

  /** Makes a piece of the first {@code cutFrames} frames, from its speech less the padding. */
  private Piece cut(int cutFrames) {
    int from = Math.max(0, firstSpeech - paddingFrames);
    // The last frame of the note may be padding past its end: a piece ends with the note.
    int end = (int) Math.min((long) cutFrames * frameLength, samplesRead - start);
    float[] samples = Arrays.copyOfRange(buffer, from * frameLength, end);
    Piece piece = new Piece(start + (long) from * frameLength, samples, in.sampleRate());
    drop(cutFrames);
    return piece;
  }

  /** Forgets the first {@code count} frames; the ones after them move to the front. */
  private void drop(int count) {
    int kept = frames - count;
    System.arraycopy(buffer, count * frameLength, buffer, 0, kept * frameLength);
    System.arraycopy(energy, count, energy, 0, kept);
    System.arraycopy(speech, count, speech, 0, kept);
    frames = kept;
    start += (long) count * frameLength;
    firstSpeech = -1;
    lastSpeech = -1;
    for (int i = 0; i < kept; i++) {
      if (speech[i]) {
        if (firstSpeech < 0) {
          firstSpeech = i;
        }
        lastSpeech = i;
      }
    }
  }
}
