package dev.bolo.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import okhttp3.HttpUrl;
import org.junit.jupiter.api.Test;

/** What a provider call's span names as its {@code url.full}. */
class ProviderSpansTest {

  @Test
  void aKeyInTheQueryAndCredentialsInTheAddressAreLeftOut() {
    HttpUrl gemini =
        HttpUrl.get(
            "https://ops:s3cret@generativelanguage.googleapis.com/v1beta/models/m:generateContent"
                + "?key=AIzaSECRET");
    assertThat(ProviderSpans.fullUrl(gemini))
        .isEqualTo("https://generativelanguage.googleapis.com/v1beta/models/m:generateContent")
        .doesNotContain("s3cret", "AIzaSECRET", "ops");
  }

  @Test
  void anAddressWithNeitherIsNamedAsItIs() {
    HttpUrl openai = HttpUrl.get("http://127.0.0.1:8081/v1/audio/transcriptions");
    assertThat(ProviderSpans.fullUrl(openai)).isEqualTo(openai.toString());
    HttpUrl emptyQuery = HttpUrl.get("http://127.0.0.1:8081/v1/audio/transcriptions?");
    assertThat(ProviderSpans.fullUrl(emptyQuery))
        .isEqualTo("http://127.0.0.1:8081/v1/audio/transcriptions");
  }
}
