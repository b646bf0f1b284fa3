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
  void numeralsTitlesAndHyphensAreWrittenAsAReferenceSpellsThem() {
    assertThat(WordErrorRate.words("Mr. Dashwood, cold-hearted, at 4 on the 21st in 1890"))
        .containsExactly(
            "mister",
            "dashwood",
            "cold",
            "hearted",
            "at",
            "four",
            "on",
            "the",
            "twenty",
            "first",
            "in",
            "eighteen",
            "ninety");
    assertThat(WordErrorRate.words("Mrs Smith paid 1,250 dollars for 2000 & 105 % more"))
        .containsExactly(
            "missus",
            "smith",
            "paid",
            "one",
            "thousand",
            "two",
            "hundred",
            "fifty",
            "dollars",
            "for",
            "two",
            "thousand",
            "and",
            "one",
            "hundred",
            "five",
            "percent",
            "more");
    assertThat(WordErrorRate.of("and mister john dashwood", "And Mr. John Dashwood")).isZero();
    assertThat(WordErrorRate.words("Call him to-morrow, not to-day"))
        .containsExactly("call", "him", "tomorrow", "not", "today");
  }

  @Test
  void anEmptyReferenceHasNoRate() {
    assertThatThrownBy(() -> WordErrorRate.of(" ", "anything"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
