package dev.bolo.server.engine;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * SubRip and WebVTT documents from timed cues, the one writer of both for every engine and for the
 * gateway's own renderings (PROTOCOL.md rule 1). Stateless.
 */
public final class Subtitles {

  /**
   * One cue: the text said between two times of the note.
   *
   * @param startMs start in milliseconds from the note's start
   * @param endMs end in milliseconds
   * @param text what was said, written on one line as given
   */
  public record Cue(long startMs, long endMs, String text) {
    public Cue {
      Objects.requireNonNull(text, "text");
    }
  }

  private Subtitles() {}

  /**
   * The document of {@code cues} in {@code format}, {@link ResponseFormat#SRT} (numbered cues,
   * {@code HH:MM:SS,mmm}) or {@link ResponseFormat#VTT} (a {@code WEBVTT} header, {@code
   * HH:MM:SS.mmm}); cues without text are left out.
   */
  public static String write(List<Cue> cues, ResponseFormat format) {
    boolean srt =
        switch (format) {
          case SRT -> true;
          case VTT -> false;
          case JSON, TEXT, VERBOSE_JSON ->
              throw new IllegalArgumentException("not a subtitle format: " + format);
        };
    StringBuilder document = new StringBuilder(srt ? "" : "WEBVTT\n\n");
    int number = 0;
    for (Cue cue : cues) {
      // A cue's text may not hold the arrow or a blank line: either would end or break the cue.
      String text = cue.text().strip().replace("-->", "->").replaceAll("\\n\\s*\\n", "\n");
      if (text.isEmpty()) {
        continue;
      }
      number++;
      if (srt) {
        document.append(number).append('\n');
      }
      char separator = srt ? ',' : '.';
      document
          .append(time(cue.startMs(), separator))
          .append(" --> ")
          .append(time(Math.max(cue.startMs(), cue.endMs()), separator))
          .append('\n')
          .append(text)
          .append("\n\n");
    }
    return document.toString();
  }

  /** {@code HH:MM:SS,mmm} (SubRip, {@code ','}) or {@code HH:MM:SS.mmm} (WebVTT, {@code '.'}). */
  static String time(long millis, char millisSeparator) {
    long at = Math.max(0, millis);
    return String.format(
        Locale.ROOT,
        "%02d:%02d:%02d%c%03d",
        at / 3_600_000,
        at / 60_000 % 60,
        at / 1000 % 60,
        millisSeparator,
        at % 1000);
  }
}
