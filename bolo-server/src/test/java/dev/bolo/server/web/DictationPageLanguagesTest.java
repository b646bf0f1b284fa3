package dev.bolo.server.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.testing.Browser;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;

/**
 * The dictation page offers the languages of the model it sends its notes to, as {@code GET
 * /v1/models} lists them, once it has the device's token: the offline engine's English only, an
 * engine that takes any language every language the page knows. Without the list (no token, a
 * refused one) it offers every language, as before.
 */
class DictationPageLanguagesTest {

  /** Every language the page knows, its engine's default (no language sent) first. */
  private static final List<String> ALL_LANGUAGES =
      List.of("", "en", "de", "es", "fr", "hi", "it", "ja", "nl", "pt", "zh");

  @TempDir static Path dataDir;

  /** A gateway with no engine chosen: the offline one. */
  private static Gateway offline;

  private static Browser browser;

  @RegisterExtension final OpenAiGateway openAi = OpenAiGateway.onDemand(Map.of());

  @BeforeAll
  static void start() {
    offline =
        Gateway.withRealTime(
            Map.of(
                "BOLO_PORT",
                "0",
                "BOLO_DATA_DIR",
                dataDir.toString(),
                "BOLO_DEVICE_TOKENS",
                "alpha=" + Gateway.TOKEN_A));
    browser = Browser.start();
  }

  @AfterAll
  static void stop() {
    if (browser != null) {
      browser.close();
    }
    if (offline != null) {
      offline.close();
    }
  }

  @AfterEach
  void noFileOrScriptWasRefusedByTheContentSecurityPolicy() {
    assertThat(browser.consoleMessages())
        .noneMatch(m -> m.contains("Content Security Policy") || m.contains("Refused to"));
  }

  @Test
  void aDefaultGatewaysPageOffersEnglishOnlyOnceItHasTheToken() {
    openWithoutToken(offline);
    // Before the token, the page cannot ask: it offers what it knows.
    assertThat(languagesOffered()).isEqualTo(ALL_LANGUAGES);

    enterToken(Gateway.TOKEN_A);

    browser.await().until(d -> languagesOffered().equals(List.of("", "en")));
    assertThat(optionNames()).containsExactly("The engine's default", "English");
    assertThat(selectedLanguage()).isEmpty();
  }

  @Test
  void aSavedLanguageTheEngineDoesNotSpeakGivesWayToTheEnginesDefault() {
    openWithoutToken(offline);
    browser
        .driver()
        .executeScript(
            "localStorage.setItem('bolo.settings', JSON.stringify({language: 'de'}));"
                + "localStorage.setItem('bolo.token', arguments[0]);",
            Gateway.TOKEN_A);

    browser.open(offline.url("/"));

    browser.await().until(d -> languagesOffered().equals(List.of("", "en")));
    assertThat(selectedLanguage()).isEmpty();
  }

  @Test
  void aRefusedTokenLeavesEveryLanguageOffered() {
    openWithoutToken(offline);

    enterToken("not-a-token-of-this-gateway");

    browser.await().until(d -> browser.text("status").startsWith("Token refused"));
    assertThat(languagesOffered()).isEqualTo(ALL_LANGUAGES);
  }

  @Test
  void aGatewayWhoseEngineTakesAnyLanguageOffersEveryLanguage() {
    Gateway gateway = openAi.start(Map.of());
    openWithoutToken(gateway);

    enterToken(Gateway.TOKEN_A);

    // The model list arrives: the page is ready, its models are listed, and it still offers all.
    browser.await().until(d -> browser.text("status").startsWith("Ready"));
    assertThat(modelsOffered()).contains("whisper-1");
    assertThat(languagesOffered()).isEqualTo(ALL_LANGUAGES);
    assertThat(optionNames()).contains("German", "Japanese", "Chinese");
  }

  private static void openWithoutToken(Gateway gateway) {
    browser.open(gateway.url("/"));
    browser.driver().executeScript("localStorage.clear()");
    browser.open(gateway.url("/"));
  }

  /** Pastes the token and leaves the field with Tab, as a person does: the page keeps it then. */
  private static void enterToken(String token) {
    browser.byId("token").sendKeys(token + Keys.TAB);
  }

  private static List<String> languagesOffered() {
    return options("language").stream().map(o -> o.getDomProperty("value")).toList();
  }

  private static List<String> optionNames() {
    return options("language").stream().map(o -> o.getDomProperty("textContent")).toList();
  }

  private static List<String> modelsOffered() {
    return options("model").stream().map(o -> o.getDomProperty("value")).toList();
  }

  private static String selectedLanguage() {
    return browser.byId("language").getDomProperty("value");
  }

  private static List<WebElement> options(String select) {
    return browser.byId(select).findElements(By.tagName("option"));
  }
}
