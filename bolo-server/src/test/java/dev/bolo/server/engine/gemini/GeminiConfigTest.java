package dev.bolo.server.engine.gemini;

import static dev.bolo.server.engine.gemini.GeminiFixtures.API_KEY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class GeminiConfigTest {

  private final OkHttpClient client = new OkHttpClient();

  @Test
  void defaultsAreGooglesEndpointAFlashModelAndTheDocumentedInlineLimit() {
    GeminiConfig config = GeminiConfig.of(API_KEY, client);

    assertThat(config.baseUrl()).isEqualTo("https://generativelanguage.googleapis.com");
    assertThat(config.model()).isEqualTo("gemini-2.5-flash");
    assertThat(config.inlineLimitBytes()).isEqualTo(20_000_000L);
  }

  @Test
  void theStringFormNeverShowsTheKey() {
    assertThat(GeminiConfig.of(API_KEY, client).toString())
        .doesNotContain(API_KEY)
        .contains("apiKey=***");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "AIza key", "AIzaSy-secret\n", "AIzaSy-sécret"})
  void aKeyThatCannotBeAHeaderIsRefusedWithoutQuotingIt(String key) {
    assertThatThrownBy(() -> GeminiConfig.of(key, client))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("apiKey must be non-empty printable ASCII")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("secret", "sécret"));
  }

  @Test
  void aBaseUrlThatIsNotHttpIsRefused() {
    assertThatThrownBy(() -> GeminiConfig.of(API_KEY, client).withBaseUrl("ftp://example.com"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("baseUrl is not an http(s) URL: ftp://example.com");
  }

  @Test
  void anInlineLimitBelowOneByteIsRefused() {
    assertThatThrownBy(() -> GeminiConfig.of(API_KEY, client).withInlineLimitBytes(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("inlineLimitBytes must be >= 1: 0");
  }
}
