package dev.bolo.server.engine.moonshine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The committed vocabulary, decoding ids the way Moonshine's own tokenizer does. */
class VocabularyTest {

  private static Vocabulary vocabulary;

  @BeforeAll
  static void load() {
    vocabulary = Vocabulary.parse(Notes.MODELS.read(ModelFile.VOCABULARY));
  }

  @Test
  void piecesJoinAndTheSpaceMarkBecomesASpaceWithoutALeadingOne() {
    // "▁Hello" 15043, "," 29892, "▁world" 3186, "!" 29991
    assertThat(decode(15043, 29892, 3186, 29991)).isEqualTo("Hello, world!");
  }

  @Test
  void byteTokensFormUtf8Characters() {
    // "▁ca" 5777, "f" 29888, then "é" as the byte tokens <0xC3> <0xA9> (ids 3 + byte value).
    assertThat(decode(5777, 29888, 3 + 0xC3, 3 + 0xA9)).isEqualTo("café");
  }

  @Test
  void controlAndSpecialTokensStandForNoText() {
    assertThat(decode(1, 15043, 0, 2, 32_000, 32_767)).isEqualTo("Hello");
  }

  @Test
  void aByteSequenceCutShortBecomesAReplacementCharacter() {
    assertThat(decode(5777, 29888, 3 + 0xC3)).isEqualTo("caf\uFFFD");
  }

  private static String decode(int... ids) {
    return vocabulary.decode(ids, ids.length);
  }
}
