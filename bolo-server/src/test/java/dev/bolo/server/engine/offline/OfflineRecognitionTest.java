package dev.bolo.server.engine.offline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.engine.EngineResult;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The real recogniser with Bolo's tuned search on the committed sample notes. */
class OfflineRecognitionTest {

  private static SphinxEngine engine;

  @BeforeAll
  static void loadModel() throws InterruptedException {
    OfflineConfig config = new OfflineConfig(2, 4, Duration.ofSeconds(5), SearchTuning.TUNED);
    engine = new SphinxEngine(config, () -> SphinxModel.load(config.tuning()));
    assertThat(engine.awaitLoaded(Duration.ofMinutes(5))).as("model loaded").isTrue();
  }

  @AfterAll
  static void close() {
    engine.close();
  }

  @Test
  void sampleNotesAreTranscribedWithinTheMeasuredWordErrorRate() {
    int errors = 0;
    int words = 0;
    for (SampleNotes note : SampleNotes.all()) {
      String text = transcribe(note.bytes());
      List<String> reference = WordErrorRate.words(note.reference());
      int noteErrors = WordErrorRate.errors(reference, WordErrorRate.words(text));
      System.out.printf("%s: %d/%d '%s'%n", note.name(), noteErrors, reference.size(), text);
      errors += noteErrors;
      words += reference.size();
    }
    assertThat(words).isGreaterThan(40);
    assertThat((double) errors / words).isLessThanOrEqualTo(0.10);
  }

  private static String transcribe(byte[] wav) {
    EngineResult result = engine.transcribe(TestAudio.of(wav).request());
    assertThat(result).isInstanceOf(EngineResult.Transcribed.class);
    return ((EngineResult.Transcribed) result).text();
  }
}
