package dev.bolo.server.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.testing.Browser;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.LedgerProbe;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * What the dictation page says when the gateway refuses a note for good: real refusals of a real
 * gateway on the offline engine, whose limits are set small (a device's free audio of 1 s, notes of
 * at most 8 s), shown in {@code #status} in plain words with what to do, and never resent.
 */
class DictationPageRefusalsTest {

  private static final Path NOTE = Path.of("..", "samples", "notes", "groceries.wav");

  /** Each device's free audio. */
  private static final int TRIAL_SECONDS = 1;

  /**
   * The longest note the engine takes. The gateway checks a note's length before the device's
   * quota, so the short note must stay under it however late a busy machine presses Stop: the
   * browser's note is as long as the recording ran, and at load 20 a Stop meant for 1 s came after
   * more than 2.
   */
  private static final int MAX_NOTE_SECONDS = 8;

  /** When Stop is pressed for a short note: half a second of silence, then the first words. */
  private static final String SHORT_STOP_AT = "0:01";

  /** When Stop is pressed for a note longer than the engine takes (the microphone loops). */
  private static final String WHOLE_STOP_AT = "0:10";

  @TempDir static Path dataDir;

  private static Gateway gateway;
  private static Browser browser;

  @BeforeAll
  static void start() throws Exception {
    gateway =
        Gateway.withRealTime(
            Map.of(
                "BOLO_PORT",
                "0",
                "BOLO_ENGINE",
                "offline",
                "BOLO_OFFLINE_MAX_SECONDS",
                Integer.toString(MAX_NOTE_SECONDS),
                "BOLO_TRIAL_SECONDS",
                Integer.toString(TRIAL_SECONDS),
                "BOLO_DATA_DIR",
                dataDir.resolve("gateway").toString(),
                "BOLO_DEVICE_TOKENS",
                "alpha=" + Gateway.TOKEN_A + ",bravo=" + Gateway.TOKEN_B));
    Path microphone = dataDir.resolve("microphone.wav");
    Files.write(microphone, DictationPageTest.withSilenceAround(Files.readAllBytes(NOTE)));
    browser = Browser.withMicrophone(microphone);
    DictationPageTest.awaitReady(gateway);
  }

  @AfterAll
  static void stop() {
    if (browser != null) {
      browser.close();
    }
    if (gateway != null) {
      gateway.close();
    }
  }

  @AfterEach
  void noFileOrScriptWasRefusedByTheContentSecurityPolicy() {
    assertThat(browser.consoleMessages())
        .noneMatch(m -> m.contains("Content Security Policy") || m.contains("Refused to"));
  }

  @Test
  void aDeviceWhoseFreeSecondsAreSpentIsToldQuotaSpentAndWhatToDo() throws Exception {
    // The device spends its one free second on a note of exactly that length.
    Gateway.Reply spending =
        gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, TestAudio.wav(TRIAL_SECONDS * 1000, 7)));
    assertThat(spending.status()).as(spending.body()).isEqualTo(200);
    // The charge is written after the answer; until then the second is held, not spent.
    try (LedgerProbe ledger = LedgerProbe.open(dataDir.resolve("gateway"), gateway)) {
      Await.until(
          () -> ledger.chargedMillis("alpha") == TRIAL_SECONDS * 1000L,
          () -> ledger.chargedMillis("alpha") + " ms charged");
    }
    double runsBefore = engineRuns();
    openThePageWith(Gateway.TOKEN_A);

    record(SHORT_STOP_AT);
    browser.await().until(d -> isFinished(state()));

    assertThat(state()).isEqualTo("error");
    assertThat(browser.text("status"))
        .startsWith("Quota spent: this device has used all its free seconds.")
        .contains("Ask the operator to raise the device's quota.");
    assertThat(browser.text("notes")).contains("not transcribed (1 attempt)");
    assertThat(browser.text("transcript")).isEmpty();
    assertThat(engineRuns()).isEqualTo(runsBefore);
  }

  @Test
  void aNoteLongerThanTheEngineTakesIsToldTooLongForThisEngineAndWhatToDo() throws Exception {
    double runsBefore = engineRuns();
    openThePageWith(Gateway.TOKEN_B);

    record(WHOLE_STOP_AT);
    browser.await().until(d -> isFinished(state()));

    assertThat(state()).isEqualTo("error");
    assertThat(browser.text("status"))
        .startsWith("Note too long for this engine:")
        .contains("takes notes up to " + MAX_NOTE_SECONDS + " s")
        .contains("Record a shorter note, or ask the operator for an engine that takes longer");
    assertThat(browser.text("notes")).contains("not transcribed (1 attempt)");
    assertThat(engineRuns()).isEqualTo(runsBefore);
  }

  private static void openThePageWith(String token) {
    browser.open(gateway.url("/"));
    browser.driver().executeScript("localStorage.clear()");
    browser.open(gateway.url("/"));
    browser.byId("token").sendKeys(token + Keys.TAB);
    browser.await().until(d -> browser.text("status").startsWith("Ready"));
  }

  private static void record(String stopAt) {
    browser.byId("record").click();
    browser.await().until(d -> "recording".equals(state()));
    browser.await().until(ExpectedConditions.textToBe(By.id("elapsed"), stopAt));
    browser.byId("stop").click();
  }

  private static String state() {
    return browser.byId("status").getDomAttribute("data-state");
  }

  private static boolean isFinished(String state) {
    return List.of("done", "replayed", "error", "cancelled").contains(state);
  }

  /** The offline engine's runs so far, whatever their result, from the gateway's metrics. */
  private static double engineRuns() {
    Matcher runs =
        Pattern.compile(
                "^bolo_upstream_calls_total\\{engine=\"offline\",[^}]*} (\\S+)$", Pattern.MULTILINE)
            .matcher(gateway.app().metrics().scrape());
    double total = 0;
    while (runs.find()) {
      total += Double.parseDouble(runs.group(1));
    }
    return total;
  }
}
