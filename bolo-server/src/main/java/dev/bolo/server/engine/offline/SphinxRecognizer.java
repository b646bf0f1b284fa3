package dev.bolo.server.engine.offline;

import edu.cmu.sphinx.frontend.FrontEnd;
import edu.cmu.sphinx.frontend.util.StreamDataSource;
import edu.cmu.sphinx.recognizer.Recognizer;
import edu.cmu.sphinx.result.Result;
import edu.cmu.sphinx.result.WordResult;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * One allocated Sphinx4 recogniser: its own search, language-model cache and front end, sharing the
 * acoustic model and dictionary with the others. Not thread safe: one note at a time.
 */
final class SphinxRecognizer implements NoteRecognizer {

  private final Recognizer recognizer;
  private final FrontEnd frontEnd;
  private final StreamDataSource source;

  SphinxRecognizer(Recognizer recognizer, FrontEnd frontEnd, StreamDataSource source) {
    this.recognizer = recognizer;
    this.frontEnd = frontEnd;
    this.source = source;
  }

  /**
   * Recognises a whole note.
   *
   * @param samples 16 kHz mono signed 16-bit samples
   * @param stop polled while audio is fed in; when it answers true the rest of the note is skipped,
   *     so an abandoned request frees its recogniser within a frame
   */
  @Override
  public List<Utterance> recognize(short[] samples, BooleanSupplier stop) {
    // Each note starts from a clean front end: voice-activity levels and pre-emphasis history must
    // not carry over from the previous note, or the same audio could give another transcript.
    frontEnd.initialize();
    source.setInputStream(new SampleStream(samples, stop));
    List<Utterance> utterances = new ArrayList<>();
    Result result;
    while ((result = recognizer.recognize()) != null) {
      List<Utterance.TimedWord> words = new ArrayList<>();
      for (WordResult word : result.getTimedBestResult(false)) {
        if (word.isFiller()
            || word.getWord().isSentenceStartWord()
            || word.getWord().isSentenceEndWord()) {
          continue;
        }
        words.add(
            new Utterance.TimedWord(
                word.getWord().getSpelling(),
                word.getTimeFrame().getStart(),
                word.getTimeFrame().getEnd()));
      }
      if (!words.isEmpty()) {
        utterances.add(new Utterance(words));
      }
    }
    return utterances;
  }

  @Override
  public void close() {
    recognizer.deallocate();
  }

  /** Little-endian 16-bit bytes over the samples, ending early once {@code stop} says so. */
  private static final class SampleStream extends InputStream {
    private final short[] samples;
    private final BooleanSupplier stop;
    private int next;

    SampleStream(short[] samples, BooleanSupplier stop) {
      this.samples = samples;
      this.stop = stop;
    }

    @Override
    public int read() {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) {
      if (next >= samples.length || stop.getAsBoolean()) {
        return -1;
      }
      // Whole samples only: the data source reads in blocks of even length.
      int count = Math.min(length / 2, samples.length - next);
      for (int i = 0; i < count; i++) {
        short sample = samples[next++];
        buffer[offset + 2 * i] = (byte) sample;
        buffer[offset + 2 * i + 1] = (byte) (sample >> 8);
      }
      return count * 2;
    }
  }
}
