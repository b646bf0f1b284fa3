package dev.bolo.server.engine.moonshine;

import java.util.List;
import java.util.stream.Collectors;

/**
 * What was said in a note, an utterance at a time.
 *
 * @param segments the utterances that had words, in order
 * @param durationMs the note's length
 */
public record TimedTranscript(List<Segment> segments, long durationMs) {

  public TimedTranscript {
    segments = List.copyOf(segments);
    if (durationMs < 0) {
      throw new IllegalArgumentException("durationMs must be >= 0: " + durationMs);
    }
  }

  /** The segments' texts joined by single spaces; empty when nothing was said. */
  public String text() {
    return segments.stream().map(Segment::text).collect(Collectors.joining(" "));
  }

  /**
   * One utterance: its place in the note, as the voice-activity detector cut it (padding included),
   * and its text. Moonshine gives no word times.
   *
   * @param startMs where it starts in the note
   * @param endMs where it ends
   * @param text what was said, never blank
   */
  public record Segment(long startMs, long endMs, String text) {
    public Segment {
      if (startMs < 0 || endMs < startMs) {
        throw new IllegalArgumentException("need 0 <= startMs <= endMs: " + startMs + ", " + endMs);
      }
      if (text.isBlank()) {
        throw new IllegalArgumentException("a segment has words");
      }
    }
  }
}
