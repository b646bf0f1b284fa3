package dev.bolo.server.engine.moonshine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.engine.offline.WordErrorRate;
import dev.bolo.server.testing.SampleNotes;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Moonshine tiny with Silero VAD, loaded from the committed models, on real recordings. */
class MoonshineRecognizerTest {

  private static MoonshineRecognizer recognizer;

  @BeforeAll
  static void load() {
    recognizer = MoonshineRecognizer.load(Notes.MODELS, MoonshineRecognizer.Options.defaults());
  }

  @AfterAll
  static void close() throws Exception {
    recognizer.close();
  }

  @Test
  void libriVoxRecordingsAreTranscribedWithinTheMeasuredWordErrorRateTwoAtOnce() throws Exception {
    // Two notes side by side, in opposite orders, their calls on the same sessions at once: each
    // must write the recordings as well as a note alone does.
    List<Notes.Clip> clips = Notes.librivox();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<String>> sides = new ArrayList<>();
      for (int side = 0; side < 2; side++) {
        List<Notes.Clip> order = new ArrayList<>(clips);
        if (side == 1) {
          Collections.reverse(order);
        }
        sides.add(pool.submit(() -> libriVoxErrors(order)));
      }
      for (Future<String> side : sides) {
        String report = side.get();
        int errors = Integer.parseInt(report.substring(0, report.indexOf(' ')));
        // Measured: 2 errors in 71 words (2.8 %: "ill-sposed" for "ill disposed", and the
        // reader's repeated "a" in "a more a amiable" not written). Two more fail: 4 / 71, 5.6 %.
        assertThat(errors).as(report).isLessThanOrEqualTo(4);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** "ERRORS of WORDS" and each clip's errors and text. */
  private static String libriVoxErrors(List<Notes.Clip> clips) {
    StringBuilder report = new StringBuilder();
    int errors = 0;
    int words = 0;
    for (Notes.Clip clip : clips) {
      String text = recognizer.recognize(clip.samples()).text();
      List<String> reference = WordErrorRate.words(clip.reference());
      int clipErrors = WordErrorRate.errors(reference, WordErrorRate.words(text));
      report.append(
          String.format("%n%s: %d/%d '%s'", clip.name(), clipErrors, reference.size(), text));
      errors += clipErrors;
      words += reference.size();
    }
    assertThat(words).isEqualTo(71);
    return errors + " of " + words + report;
  }

  @Test
  void flitesSampleNotesAreTranscribedWithinTheMeasuredWordErrorRate() throws IOException {
    StringBuilder report = new StringBuilder();
    int errors = 0;
    int words = 0;
    for (SampleNotes note : SampleNotes.all()) {
      String text = recognizer.recognize(Notes.decode(note.wav())).text();
      List<String> reference = WordErrorRate.words(note.reference());
      int noteErrors = WordErrorRate.errors(reference, WordErrorRate.words(text));
      report.append(
          String.format("%n%s: %d/%d '%s'", note.name(), noteErrors, reference.size(), text));
      errors += noteErrors;
      words += reference.size();
    }
    assertThat(words).isEqualTo(55);
    // Measured: 7 errors in 55 words (12.7 %; flite's synthetic "book a table for two" is heard
    // as "but capable for to"). Two more fail the test: 9 / 55, 16.4 %.
    assertThat(errors).as(report.toString()).isLessThanOrEqualTo(9);
  }

  @Test
  void silenceGivesNoText() {
    TimedTranscript heard = recognizer.recognize(Notes.silence(60));

    assertThat(heard.segments()).isEmpty();
    assertThat(heard.text()).isEmpty();
    assertThat(heard.durationMs()).isEqualTo(60_000);
  }

  @Test
  void noiseGivesNoText() {
    float[] noise =
        Notes.concat(
            Notes.whiteNoise(20, 0.03, 1),
            Notes.brownNoise(20, 0.1, 2),
            Notes.whiteNoise(10, 0.2, 3));

    assertThat(recognizer.recognize(noise).segments()).isEmpty();
  }

  @Test
  void aShortNoteInTwentySecondsOfSilenceOnEachSideGivesOnlyItsWords() throws IOException {
    Notes.Clip clip = Notes.librivox().get(4);
    float[] note = Notes.concat(Notes.silence(20), clip.samples(), Notes.silence(20));

    TimedTranscript heard = recognizer.recognize(note);

    assertThat(heard.segments()).hasSize(1);
    TimedTranscript.Segment segment = heard.segments().getFirst();
    long speechEndMs = 20_000 + clip.samples().length * 1000L / Notes.RATE;
    assertThat(segment.startMs()).isBetween(19_500L, 20_500L);
    assertThat(segment.endMs()).isBetween(speechEndMs - 500, speechEndMs + 500);
    assertThat(
            WordErrorRate.errors(
                WordErrorRate.words(clip.reference()), WordErrorRate.words(heard.text())))
        .as(heard.text())
        .isLessThanOrEqualTo(1);
  }

  @Test
  void anUtteranceLongerThanTheModelsWindowIsSplitAndAllOfItHeard() throws Exception {
    List<Notes.Clip> clips = Notes.librivox();
    // Six recordings back to back with no pause between them: 31.8 s, past the 30 s window.
    List<Notes.Clip> spoken =
        List.of(clips.get(0), clips.get(1), clips.get(2), clips.get(3), clips.get(4), clips.get(0));
    float[] utterance =
        Notes.concat(spoken.stream().map(Notes.Clip::samples).toArray(float[][]::new));
    String reference = String.join(" ", spoken.stream().map(Notes.Clip::reference).toList());
    assertThat(utterance.length).isGreaterThan(MoonshineRecognizer.WINDOW_SECONDS * Notes.RATE);

    String text = recognizer.recognizeUtterance(utterance, () -> false);

    List<String> words = WordErrorRate.words(reference);
    assertThat(WordErrorRate.errors(words, WordErrorRate.words(text)))
        .as(text)
        .isLessThanOrEqualTo(words.size() / 10);
    assertThat(WordErrorRate.words(text)).endsWith("do", "for", "them");
  }

  @Test
  void segmentsAreHandedOnInOrderAndAStopEndsRecognitionWithThoseDone() throws Exception {
    List<Notes.Clip> clips = Notes.librivox();
    float[] note =
        Notes.concat(
            clips.get(1).samples(),
            Notes.silence(2),
            clips.get(4).samples(),
            Notes.silence(2),
            clips.get(2).samples());
    List<TimedTranscript.Segment> handedOn = new java.util.ArrayList<>();

    TimedTranscript heard =
        recognizer.recognize(new ArrayNote(note), () -> handedOn.size() >= 2, handedOn::add);

    assertThat(heard.segments()).hasSize(2).isEqualTo(handedOn);
    assertThat(heard.segments().get(0).endMs()).isLessThan(heard.segments().get(1).startMs());
    assertThat(heard.text())
        .containsIgnoringCase("young man")
        .containsIgnoringCase("amiable himself");
  }

  @Test
  void aSentenceSaidFiveTimesOverInOneUtteranceIsWrittenFiveTimesNotCutAsALoop() throws Exception {
    Notes.Clip clip = Notes.librivox().get(1);
    float[] said =
        Notes.concat(
            clip.samples(), clip.samples(), clip.samples(), clip.samples(), clip.samples());

    String text = recognizer.recognizeUtterance(said, () -> false);

    assertThat(WordErrorRate.words(text)).as(text).filteredOn("young"::equals).hasSize(5);
  }

  /**
   * LibriVox 0880 ("he was not an ill disposed young man") made 1.8 times faster, pitch kept:
   * {@code sox sense_and_sensibility_01_austen_64kb-0880.wav librivox-0880-tempo-1.8.flac tempo
   * 1.8}.
   */
  @Test
  void fastSpeechInAShortUtteranceIsWrittenToItsEnd() throws IOException {
    float[] fast =
        Notes.decode(
            java.nio.file.Path.of("src/test/resources/moonshine/librivox-0880-tempo-1.8.flac"));

    String text = recognizer.recognize(fast).text();

    // Heard then as "He was not an ill-sphogeian man." (1.8 times is hard to follow); before the
    // bound had room beyond the rate it stopped at 10 tokens: "He was not an ill-sphogeian".
    assertThat(WordErrorRate.words(text)).as(text).endsWith("man");
  }

  /** A note in memory, read as the gateway's decoder is read. */
  private record ArrayNote(float[] samples, int[] position) implements dev.bolo.decode.MonoSamples {
    ArrayNote(float[] samples) {
      this(samples, new int[1]);
    }

    @Override
    public int sampleRate() {
      return Notes.RATE;
    }

    @Override
    public int read(float[] into, int offset, int length) {
      int count = Math.min(length, Math.min(333, samples.length - position[0]));
      if (count <= 0) {
        return -1;
      }
      System.arraycopy(samples, position[0], into, offset, count);
      position[0] += count;
      return count;
    }
  }
}
