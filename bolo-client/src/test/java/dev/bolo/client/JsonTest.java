package dev.bolo.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JsonTest {

  @Test
  void readsTheGatewaysTranscriptShape() {
    Object value =
        Json.parse(
            "{\"text\":\"caf\\u00e9 \\\"ok\\\"\\n\",\"deduplicated\":true,\"duration_ms\":1500,"
                + " \"score\": -1.5e2, \"words\": [1, null], \"nested\": {\"a\": false}}");

    assertThat(value)
        .isEqualTo(
            Map.of(
                "text",
                "café \"ok\"\n",
                "deduplicated",
                true,
                "duration_ms",
                1500L,
                "score",
                -150.0,
                "words",
                List.of(1L, Json.NULL),
                "nested",
                Map.of("a", false)));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"", "{", "{\"a\"}", "{\"a\":1,}", "[1 2]", "01", "\"\\x\"", "{} x", "tru"})
  void rejectsWhatIsNotJson(String text) {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Json.parse(text))
        .withMessageStartingWith("invalid JSON at offset");
  }

  @Test
  void nestingDeeperThanTheCapIsInvalidNotAStackOverflow() {
    String deepest = "[".repeat(Json.MAX_DEPTH) + "]".repeat(Json.MAX_DEPTH);

    assertThat(Json.parse(deepest)).isInstanceOf(List.class);
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Json.parse("[" + deepest + "]"))
        .withMessageEndingWith("nested deeper than 64");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Json.parse("{\"a\":".repeat(100_000)))
        .withMessageEndingWith("nested deeper than 64");
  }

  @Test
  void aNumberLongerThanAnyAnswerNeedsIsInvalid() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Json.parse("1".repeat(1_000_000)))
        .withMessageEndingWith("number longer than 100 characters");
  }
}
