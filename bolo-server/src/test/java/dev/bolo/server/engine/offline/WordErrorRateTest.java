package dev.bolo.server.engine.offline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class WordErrorRateTest {

  @Test
  void identicalTextsHaveNoErrors() {
    assertThat(WordErrorRate.of("buy milk and eggs", "buy milk and eggs")).isZero();
  }

  @Test
  void caseAndPunctuationAreIgnoredButApostrophesKept() {
    assertThat(WordErrorRate.words("Don't forget: Milk, EGGS!"))
        .containsExactly("don't", "forget", "milk", "eggs");
    assertThat(WordErrorRate.of("don't forget milk", "Don't forget, milk.")).isZero();
  }

  @Test
  void substitutionsDeletionsAndInsertionsEachCountOne() {
    List<String> reference = WordErrorRate.words("book a table for two");
    assertThat(WordErrorRate.errors(reference, WordErrorRate.words("but a table for two")))
        .isEqualTo(1);
    assertThat(WordErrorRate.errors(reference, WordErrorRate.words("book table for two")))
        .isEqualTo(1);
    assertThat(WordErrorRate.errors(reference, WordErrorRate.words("book a big table for two")))
        .isEqualTo(1);
    assertThat(WordErrorRate.errors(reference, WordErrorRate.words("but the table for two")))
        .isEqualTo(2);
  }

  @Test
  void theDistanceIsTheCheapestAlignmentNotAPositionalComparison() {
    // Positionally every word differs; one deletion at the front aligns the rest.
    assertThat(WordErrorRate.errors(List.of("a", "b", "c", "d"), List.of("b", "c", "d")))
        .isEqualTo(1);
  }

  @Test
  void rateIsErrorsOverReferenceWordsAndMayExceedOne() {
    assertThat(WordErrorRate.of("call mum", "")).isEqualTo(1.0);
    assertThat(WordErrorRate.of("call mum", "please call my mum now")).isEqualTo(1.5);
  }

  @Test
  void anEmptyReferenceHasNoRate() {
    assertThatThrownBy(() -> WordErrorRate.of(" ", "anything"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
