package dev.bolo.server.engine.moonshine;

import ai.onnxruntime.OrtException;
import dev.bolo.decode.MonoSamples;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import org.jspecify.annotations.Nullable;

/**
 * Cuts a note into utterances as it is read, by Silero VAD's verdict on each 32 ms window: an
 * utterance starts at the first speech window and ends once {@link SpeechLimits#shortestPause()} of
 * silence follows its last; it keeps {@link SpeechLimits#padding()} of audio on each side (never
 * reaching into its neighbour's), and one with less than {@link SpeechLimits#shortestSpeech()} of
 * speech is dropped. Speech that goes on past {@link SpeechLimits#longest()} is cut at the longest
 * pause inside it, or, with no pause at all, where it reached the limit. Silence before, between
 * and after the utterances is never handed on.
 *
 * <p>Speech starts at a window whose probability reaches the threshold and ends at one below the
 * release threshold (hysteresis, as in Silero's {@code get_speech_timestamps}).
 *
 * <p>Memory: about one utterance of samples, whatever the note's length. Not thread safe.
 */
final class UtteranceCutter {

  private static final int WINDOW = SileroVad.WINDOW;

  /**
   * An utterance and where it starts in the note.
   *
   * @param startSample its first sample's position in the note
   * @param samples its samples; owned by the receiver
   */
  record Utterance(long startSample, float[] samples) {
    long endSample() {
      return startSample + samples.length;
    }
  }

  private final MonoSamples in;
  private final SileroVad.Stream vad;
  private final SpeechLimits limits;
  private final long longest;
  private final long pause;
  private final long padding;
  private final long shortestSpeech;

  /** Samples {@code [bufferStart, bufferStart + filled)} of the note. */
  private final float[] buffer;

  private long bufferStart;
  private int filled;
  private boolean ended;
  private boolean speaking;

  /** The open utterance's first speech sample, or -1 when none is open. */
  private long openStart = -1;

  private long lastSpeechEnd;
  private long speech;
  private long pauseStart;
  private long pauseEnd;

  /** Where the last utterance handed on ends: the next one's padding stops there. */
  private long handedOnEnd;

  private final Deque<Utterance> ready = new ArrayDeque<>();

  UtteranceCutter(MonoSamples in, SileroVad.Stream vad, SpeechLimits limits) {
    if (in.sampleRate() != MoonshineDecoder.RATE) {
      throw new IllegalArgumentException("samples must be 16 kHz: " + in.sampleRate());
    }
    this.in = in;
    this.vad = vad;
    this.limits = limits;
    this.longest = samples(limits.longest().toMillis());
    this.pause = samples(limits.shortestPause().toMillis());
    this.padding = samples(limits.padding().toMillis());
    this.shortestSpeech = samples(limits.shortestSpeech().toMillis());
    this.buffer = new float[Math.toIntExact(longest + padding + 4L * WINDOW)];
  }

  /** The next utterance, or null after the last. */
  @Nullable Utterance next() throws IOException, OrtException {
    while (ready.isEmpty() && !ended) {
      readWindow();
    }
    return ready.poll();
  }

  /** Samples read from the note so far. */
  long samplesRead() {
    return bufferStart + filled;
  }

  private void readWindow() throws IOException, OrtException {
    keepOnlyWhatIsNeeded();
    int offset = filled;
    int count = 0;
    while (count < WINDOW) {
      int n = in.read(buffer, offset + count, WINDOW - count);
      if (n < 0) {
        break;
      }
      count += n;
    }
    if (count == 0) {
      ended = true;
      if (openStart >= 0) {
        handOn(lastSpeechEnd + padding);
      }
      return;
    }
    // A last, short window is heard padded with silence, as Silero's reference pads it.
    Arrays.fill(buffer, offset + count, offset + WINDOW, 0f);
    filled += count;
    long start = bufferStart + offset;
    long end = start + count;
    float probability = vad.speech(buffer, offset);
    speaking = probability >= (speaking ? limits.releaseThreshold() : limits.threshold());
    if (speaking) {
      heardSpeech(start, end);
    } else if (openStart >= 0 && end - lastSpeechEnd >= pause) {
      handOn(lastSpeechEnd + padding);
    }
    if (openStart >= 0 && end - openStart > longest - 2 * padding - WINDOW) {
      cutLongSpeech(end);
    }
  }

  private void heardSpeech(long start, long end) {
    if (openStart < 0) {
      openStart = start;
      speech = 0;
      pauseStart = pauseEnd = 0;
    } else if (start - lastSpeechEnd > pauseEnd - pauseStart) {
      pauseStart = lastSpeechEnd;
      pauseEnd = start;
    }
    lastSpeechEnd = end;
    speech += end - start;
  }

  /** The open utterance reached the longest: it ends at its longest pause, or here. */
  private void cutLongSpeech(long end) {
    if (!speaking) {
      handOn(Math.min(lastSpeechEnd + padding, end));
    } else if (pauseEnd > pauseStart) {
      long half = Math.min(padding, (pauseEnd - pauseStart) / 2);
      long rest = lastSpeechEnd - pauseEnd;
      lastSpeechEnd = pauseStart;
      handOn(pauseStart + half);
      openStart = pauseEnd;
      lastSpeechEnd = end;
      speech = rest;
    } else {
      lastSpeechEnd = end;
      handOn(end);
      openStart = end;
      speech = 0;
    }
    pauseStart = pauseEnd = 0;
  }

  /** Ends the open utterance at {@code until} (clamped to what was read) and hands it on. */
  private void handOn(long until) {
    long from = Math.max(Math.max(openStart - padding, handedOnEnd), bufferStart);
    long to = Math.min(until, samplesRead());
    openStart = -1;
    if (speech < shortestSpeech || to <= from) {
      return;
    }
    int offset = (int) (from - bufferStart);
    ready.add(new Utterance(from, Arrays.copyOfRange(buffer, offset, offset + (int) (to - from))));
    handedOnEnd = to;
  }

  /**
   * Drops the samples no utterance can need: before the open one's padding, or before the last
   * padding.
   */
  private void keepOnlyWhatIsNeeded() {
    long keepFrom =
        Math.max(openStart >= 0 ? openStart - padding : samplesRead() - padding, handedOnEnd);
    int drop = (int) Math.min(Math.max(0, keepFrom - bufferStart), filled);
    if (drop == 0 && filled + WINDOW <= buffer.length) {
      return;
    }
    if (filled - drop + WINDOW > buffer.length) {
      throw new IllegalStateException("utterance buffer overflow: a bug in the cutting rules");
    }
    System.arraycopy(buffer, drop, buffer, 0, filled - drop);
    bufferStart += drop;
    filled -= drop;
  }

  private static long samples(long millis) {
    return millis * MoonshineDecoder.RATE / 1000;
  }
}
