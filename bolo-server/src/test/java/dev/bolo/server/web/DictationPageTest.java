package dev.bolo.server.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.Browser;
import dev.bolo.server.testing.FrontProxy;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.SampleNotes;
import dev.bolo.testkit.Await;
import dev.bolo.testkit.CuttingProxy;
import dev.bolo.testkit.NodePackage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.Keys;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;

/**
 * The dictation page in a real browser: headless Chromium whose microphone plays a committed sample
 * note, a real gateway on the offline engine behind a same-origin proxy, and the page's own
 * JavaScript recording, encoding and uploading the note.
 */
class DictationPageTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The note the microphone plays, and the words the offline engine hears in it. */
  private static final SampleNotes GROCERIES = SampleNotes.named("groceries");

  /** Silence around the note in the microphone's loop: before it, and after it until it loops. */
  private static final double LEAD_SECONDS = 0.5, TRAIL_SECONDS = 4;

  /** When Stop is pressed: after the note has ended, before the loop plays it again. */
  private static final String STOP_AT = "0:05";

  /** How often the replay test records the note again after its first recording. */
  private static final int LATER_RECORDINGS = 2;

  /**
   * When Stop is pressed for a long note: the loop has played the note twice (about 11 s of 16 kHz
   * 16-bit samples are kept, some 360 KB), past the page's 256 KiB threshold for resumable uploads.
   */
  private static final String LONG_STOP_AT = "0:12";

  /** Where the link breaks during the long note's upload: about the middle of its bytes. */
  private static final long CUT_AFTER_BYTES = 160_000;

  /** The pace of the link the long note goes over: 1 MB/s, a good phone link. */
  private static final long LINK_BYTES_PER_SECOND = 1_000_000;

  /** The page's note list: "Note 3, 10:41:07, 11.2 s: done (…)". */
  private static final Pattern NOTE_SECONDS = Pattern.compile("(\\d+\\.\\d) s: ");

  @TempDir static Path dataDir;

  private static Gateway gateway;
  private static FrontProxy proxy;
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
                "BOLO_DATA_DIR",
                dataDir.resolve("gateway").toString(),
                "BOLO_DEVICE_TOKENS",
                "alpha=" + Gateway.TOKEN_A + ",bravo=" + Gateway.TOKEN_B));
    proxy = FrontProxy.inFrontOf(gateway.url(""));
    Path microphone = dataDir.resolve("microphone.wav");
    Files.write(microphone, withSilenceAround(GROCERIES.bytes()));
    browser = Browser.withMicrophone(microphone);
    awaitReady(gateway);
  }

  @AfterAll
  static void stop() {
    if (browser != null) {
      browser.close();
    }
    if (proxy != null) {
      proxy.close();
    }
    if (gateway != null) {
      gateway.close();
    }
  }

  @BeforeEach
  void openThePageWithTheToken() {
    browser.open(proxy.url("/"));
    browser.driver().executeScript("localStorage.clear()");
    browser.open(proxy.url("/"));
    // Tab leaves the field, as a person does after pasting: the page keeps the token then.
    browser.byId("token").sendKeys(Gateway.TOKEN_A + Keys.TAB);
    browser.await().until(d -> browser.text("status").startsWith("Ready"));
  }

  @AfterEach
  void noFileOrScriptWasRefusedByTheContentSecurityPolicy() {
    assertThat(browser.consoleMessages())
        .noneMatch(m -> m.contains("Content Security Policy") || m.contains("Refused to"));
  }

  /**
   * A note whose answer is lost on the way back (a balancer in front of the gateway times out while
   * the gateway finishes) is resent, found by its lookup, and shown as replayed: the gateway ran
   * its engine once. Then the page says "replayed" exactly when the gateway replayed, for later
   * recordings of the same note. Chromium's fake microphone restarts its file for every recording
   * and the page drops the silence around the note, so the same note often makes the same file; but
   * on a loaded machine the capture can drop or repeat a block of samples, and that recording is a
   * different file, which the gateway rightly transcribes afresh. So each later recording's state
   * is checked against what the gateway saw, whichever it was.
   */
  @Test
  void aNoteWhoseAnswerWasLostIsReplayedOnResendAndLaterRecordingsSayWhatTheGatewayDid()
      throws Exception {
    // A device no other test uses, so that this note is new to the gateway whatever ran before
    // (not a response format: every format of a note is one piece of work).
    browser.byId("token").clear();
    browser.byId("token").sendKeys(Gateway.TOKEN_B + Keys.TAB);
    browser.await().until(d -> browser.text("status").startsWith("Ready"));
    int before = proxy.uploads().size();
    double runsBefore = engineRuns();
    proxy.loseNextAnswers(1, 504);

    record();

    browser.await().until(d -> isFinished(state()));
    assertThat(state()).as(browser.text("status")).isEqualTo("replayed");
    assertThat(browser.text("status")).contains("replayed");
    assertThat(browser.text("transcript")).is(GROCERIES.heard());
    assertThat(browser.text("notes")).contains("2 attempts");
    // The resend was answered by the lookup: no byte of the note was uploaded again.
    assertThat(proxy.uploads().subList(before, proxy.uploads().size()))
        .extracting(FrontProxy.Upload::status)
        .containsExactly(504);
    assertThat(engineRuns() - runsBefore).isEqualTo(1.0);

    for (int recording = 2; recording <= LATER_RECORDINGS + 1; recording++) {
      record();
      browser.await().until(d -> isFinished(state()));
      List<FrontProxy.Upload> uploads = proxy.uploads().subList(before, proxy.uploads().size());
      assertThat(uploads).hasSize(recording);
      FrontProxy.Upload last = uploads.get(uploads.size() - 1);
      boolean sameFileAsBefore =
          uploads.subList(0, uploads.size() - 1).stream()
              .anyMatch(earlier -> earlier.audioSha256().equals(last.audioSha256()));
      assertThat(browser.text("transcript")).is(GROCERIES.heard());
      assertThat(last.status()).isEqualTo(200);
      assertThat(last.replayed())
          .as(uploads.toString())
          .isEqualTo(sameFileAsBefore ? "true" : null);
      assertThat(state()).as(uploads.toString()).isEqualTo(sameFileAsBefore ? "replayed" : "done");
    }
    List<FrontProxy.Upload> uploads = proxy.uploads().subList(before, proxy.uploads().size());
    assertThat(uploads).extracting(FrontProxy.Upload::idempotencyKey).doesNotHaveDuplicates();
    long distinctFiles = uploads.stream().map(FrontProxy.Upload::audioSha256).distinct().count();
    assertThat(engineRuns() - runsBefore).isEqualTo((double) distinctFiles);
  }

  @Test
  void twoServerFailuresAreResentWithTheSameKeyAndTheTranscriptStillArrives() {
    // A setting no other test uses, so that this note is new to the gateway: the lookup before
    // each resend would otherwise find an earlier test's transcript of the same recording.
    new Select(browser.byId("language")).selectByValue("en");
    proxy.failNextUploads(2, 503);
    int before = proxy.uploads().size();

    record();

    browser.await().until(d -> browser.text("status").startsWith("Attempt 2 of 4 in"));
    assertThat(browser.text("status")).contains("because the gateway answered 503");
    browser.await().until(d -> browser.text("status").startsWith("Attempt 3 of 4 in"));
    browser.await().until(d -> isFinished(state()));
    assertThat(state()).as(browser.text("status")).isIn("done", "replayed");
    assertThat(browser.text("transcript")).is(GROCERIES.heard());
    assertThat(browser.text("notes")).contains("3 attempts");
    List<FrontProxy.Upload> attempts = proxy.uploads().subList(before, proxy.uploads().size());
    assertThat(attempts).extracting(FrontProxy.Upload::status).containsExactly(503, 503, 200);
    assertThat(attempts)
        .extracting(FrontProxy.Upload::idempotencyKey)
        .doesNotContainNull()
        .containsOnly(attempts.get(0).idempotencyKey());
    assertThat(attempts)
        .extracting(FrontProxy.Upload::audioSha256)
        .doesNotContainNull()
        .containsOnly(attempts.get(0).audioSha256());
  }

  /**
   * A long note goes as a tus upload; the link breaks in the middle of it (a TCP proxy between the
   * browser and the gateway cuts the connection carrying it), and the page sends only the rest from
   * the gateway's offset, in the same attempt. Which way it learns the offset depends on Chromium:
   * a request on a fresh connection fails to the page, which asks with HEAD; one on a reused
   * keep-alive connection Chromium resends by itself, and the gateway refuses that stale append
   * with 409 and its offset, which the page follows. Either way the bytes that crossed the link are
   * the note's about once (starting over would add the 160 KB sent before the break), and the
   * engine ran once.
   */
  @Test
  void aLongNoteCutMidUploadResumesFromTheGatewaysOffsetAndIsTranscribedOnce() throws Exception {
    try (CuttingProxy link =
        CuttingProxy.cuttingTheFirstConnectionPast(
            gateway.app().port(), CUT_AFTER_BYTES, LINK_BYTES_PER_SECOND)) {
      // Its own origin: the page and its API both go through the breaking link.
      browser.open(link.url("/"));
      browser.byId("token").sendKeys(Gateway.TOKEN_A + Keys.TAB);
      browser.await().until(d -> browser.text("status").startsWith("Ready"));
      double runsBefore = engineRuns();
      long bytesBefore = link.upstreamBytes();
      // Every status the page says from here on, as a screen reader hears them.
      browser.script(
          "window.boloStatuses = [];"
              + " new MutationObserver(() => boloStatuses.push(document.getElementById('status')"
              + ".textContent)).observe(document.getElementById('status'),"
              + " {childList: true, characterData: true, subtree: true}); return true;");

      record(LONG_STOP_AT);
      browser.await().until(d -> isFinished(state()));

      // On a slow machine the answer may outlast the completing append's wait; the page then
      // fetches the finished work, which the gateway marks replayed. Either way the engine ran
      // once (below): which word the page shows depends on the machine's speed, not on Bolo.
      assertThat(state()).as(browser.text("status")).isIn("done", "replayed");
      assertThat(browser.text("transcript")).is(GROCERIES.heard());
      assertThat(link.cutsDone()).isEqualTo(1);
      String listed = browser.text("notes");
      assertThat(listed).containsPattern("(done|replayed) \\(1 attempt, resumed once\\)");
      // The client's XMLHttpRequest reported each append's bytes as handed to the connection (the
      // socket's buffers take a few hundred kilobytes at once, so one event says all of them), the
      // only source of "uploaded"; and the page said where the gateway's offset left the note
      // after the break, between the two appends.
      @SuppressWarnings("unchecked")
      List<String> statuses = (List<String>) browser.script("return window.boloStatuses;");
      String uploaded = "uploaded; waiting for the transcript.";
      int broke = -1;
      for (int i = 0; i < statuses.size() && broke < 0; i++) {
        if (statuses.get(i).matches("the connection broke; the gateway kept [1-9]\\d? %.*")) {
          broke = i;
        }
      }
      assertThat(broke).as("the break, in %s", statuses).isPositive();
      assertThat(statuses.subList(0, broke)).as("before the break").contains(uploaded);
      assertThat(statuses.subList(broke, statuses.size())).as("after the break").contains(uploaded);
      Matcher seconds = NOTE_SECONDS.matcher(listed);
      assertThat(seconds.find()).as(listed).isTrue();
      long noteBytes = 44 + Math.round(Double.parseDouble(seconds.group(1)) * 16_000) * 2;
      assertThat(noteBytes).isGreaterThan(256 * 1024);
      long sent = link.upstreamBytes() - bytesBefore;
      // The note (±0.05 s of rounding in the list) and the requests' headers, plus at most one
      // stale append: Chromium resends the cut request by itself on a reused connection, and how
      // much of its body crosses before the gateway's 409 reaches it depends on the machine's
      // load (measured: nothing idle, 148 KB beside two CPU hogs). Starting over after it would
      // send the whole note again on top: two notes' worth.
      assertThat(sent).isBetween(noteBytes - 1_600, 2 * noteBytes - CUT_AFTER_BYTES);
      assertThat(engineRuns() - runsBefore).isEqualTo(1.0);
    }
  }

  @Test
  void aNoteCancelledWhileItWaitsToBeResentIsNeverSentAgain() {
    proxy.failNextUploads(1, 503);
    int before = proxy.uploads().size();
    record();
    browser.await().until(d -> browser.text("status").startsWith("Attempt 2 of 4 in"));

    browser.byId("cancel").click();

    browser.await().until(d -> "cancelled".equals(state()));
    assertThat(browser.text("status")).contains("nothing more is sent");
    assertThat(browser.text("notes")).contains("cancelled (1 attempt)");
    // The next note takes longer than the cancelled one's pause: a resend would come first.
    record();
    browser.await().until(d -> isFinished(state()));
    List<FrontProxy.Upload> uploads = proxy.uploads().subList(before, proxy.uploads().size());
    assertThat(uploads).extracting(FrontProxy.Upload::status).containsExactly(503, 200);
    assertThat(uploads.get(1).idempotencyKey()).isNotEqualTo(uploads.get(0).idempotencyKey());
  }

  @Test
  void thePageHasNoSeriousOrCriticalAccessibilityViolationsBeforeOrAfterANote() throws Exception {
    assertThat(seriousViolations(browser.axeViolations(axe()))).isEmpty();

    record();
    browser.await().until(d -> isFinished(state()));

    assertThat(seriousViolations(browser.axeViolations(axe()))).isEmpty();
    // The pictures of docs/screenshots (-Dbolo.screenshots=docs/screenshots, see the README).
    assertThat(browser.pageScreenshot("dictation-phone", 390, true)).isNotEmptyFile();
    assertThat(browser.pageScreenshot("dictation-desktop", 1280, false)).isNotEmptyFile();
  }

  @Test
  void aTokenTheGatewayRefusesIsSaidInPlainWordsWithWhatToDo() {
    browser.byId("token").clear();
    browser.byId("token").sendKeys("not-a-device-token" + Keys.TAB);

    browser.await().until(d -> "error".equals(state()));

    assertThat(browser.text("status"))
        .startsWith("Token refused")
        .contains("Paste a current token");
  }

  @Test
  void theTokenIsKeptAcrossVisitsUntilItIsForgotten() {
    browser.open(proxy.url("/"));
    assertThat(browser.byId("token").getDomProperty("value")).isEqualTo(Gateway.TOKEN_A);

    browser.byId("forget").click();

    assertThat(browser.byId("token").getDomProperty("value")).isEmpty();
    assertThat(browser.driver().executeScript("return localStorage.getItem('bolo.token')"))
        .isNull();
    browser.open(proxy.url("/"));
    assertThat(browser.byId("token").getDomProperty("value")).isEmpty();
  }

  /**
   * A link carrying another device's token, opened while this browser keeps one (someone sent it,
   * hoping for the notes): the page asks in its own words, takes the token out of the address, and
   * keeps sending with the token it had while the question stands; agreeing switches.
   */
  @Test
  void aLinkWithAnotherTokenAsksAndTheKeptTokenStaysInUseUntilThePersonAgrees() throws Exception {
    browser.open("about:blank");
    browser.open(proxy.url("/#token=" + Gateway.TOKEN_B));

    browser.await().until(d -> browser.text("status").contains("Ready"));
    assertThat(keptToken()).isEqualTo(Gateway.TOKEN_A);
    assertThat(browser.byId("token").getDomProperty("value")).isEqualTo(Gateway.TOKEN_A);
    assertThat(browser.driver().getCurrentUrl()).isEqualTo(proxy.url("/"));
    assertThat(browser.byId("token-offer").isDisplayed()).isTrue();
    assertThat(browser.text("token-offer")).contains("Use the token from this link?");
    assertThat(browser.driver().switchTo().activeElement().getDomAttribute("id"))
        .isEqualTo("offer-keep");
    assertThat(seriousViolations(browser.axeViolations(axe()))).isEmpty();
    int before = proxy.uploads().size();

    record();
    browser.await().until(d -> isFinished(state()));

    assertThat(state()).as(browser.text("status")).isIn("done", "replayed");
    assertThat(proxy.uploads().subList(before, proxy.uploads().size()))
        .extracting(FrontProxy.Upload::token)
        .containsOnly(Gateway.TOKEN_A);
    assertThat(browser.byId("token-offer").isDisplayed()).isTrue();

    browser.byId("offer-use").click();

    assertThat(browser.byId("token-offer").isDisplayed()).isFalse();
    assertThat(keptToken()).isEqualTo(Gateway.TOKEN_B);
    assertThat(browser.byId("token").getDomProperty("value")).isEqualTo(Gateway.TOKEN_B);
  }

  /**
   * Declining keeps the token the browser had and saves nothing of the link's; a link opened in the
   * page's own tab (only the fragment changes, the page is not loaded again) asks as well.
   */
  @Test
  void decliningALinksTokenKeepsTheOneTheBrowserHad() {
    browser.open(proxy.url("/#token=" + Gateway.TOKEN_B));

    browser.await().until(d -> browser.byId("token-offer").isDisplayed());
    assertThat(browser.driver().getCurrentUrl()).isEqualTo(proxy.url("/"));
    browser.byId("offer-keep").click();

    assertThat(browser.byId("token-offer").isDisplayed()).isFalse();
    assertThat(browser.text("status")).contains("Kept this browser's token");
    assertThat(keptToken()).isEqualTo(Gateway.TOKEN_A);
    browser.open(proxy.url("/"));
    assertThat(browser.byId("token").getDomProperty("value")).isEqualTo(Gateway.TOKEN_A);
    assertThat(browser.byId("token-offer").isDisplayed()).isFalse();
  }

  /** With no token kept, a link's token is taken as a pasted one is, without a question. */
  @Test
  void aLinksTokenIsTakenWithoutAQuestionWhenTheBrowserKeepsNone() {
    browser.byId("forget").click();
    browser.open("about:blank");
    browser.open(proxy.url("/#token=" + Gateway.TOKEN_B));

    browser.await().until(d -> browser.text("status").contains("Ready"));
    assertThat(browser.byId("token-offer").isDisplayed()).isFalse();
    assertThat(keptToken()).isEqualTo(Gateway.TOKEN_B);
    assertThat(browser.driver().getCurrentUrl()).isEqualTo(proxy.url("/"));
  }

  /** axe-core's script, from its npm package. */
  private static Path axe() throws IOException, InterruptedException {
    return NodePackage.install("node/browser", "axe-core/axe.min.js")
        .path("node_modules/axe-core/axe.min.js");
  }

  private static Object keptToken() {
    return browser.script("return localStorage.getItem('bolo.token') ?? ''");
  }

  /** The violations axe rates serious or critical, as {@code id: help (elements)}. */
  private static List<String> seriousViolations(String json) throws IOException {
    assertThat(json).startsWith("[");
    List<String> serious = new ArrayList<>();
    for (JsonNode violation : JSON.readTree(json)) {
      String impact = violation.path("impact").asText();
      if (impact.equals("serious") || impact.equals("critical")) {
        serious.add(
            violation.path("id").asText()
                + ": "
                + violation.path("help").asText()
                + " "
                + violation.path("nodes"));
      }
    }
    return serious;
  }

  private static boolean isFinished(String state) {
    return List.of("done", "replayed", "error", "cancelled").contains(state);
  }

  private void record() {
    record(STOP_AT);
  }

  private void record(String stopAt) {
    browser.byId("record").click();
    browser.await().until(d -> "recording".equals(state()));
    browser
        .await()
        .until(ExpectedConditions.textToBe(org.openqa.selenium.By.id("elapsed"), stopAt));
    browser.byId("stop").click();
  }

  /** The offline engine's transcriptions so far, from the gateway's metrics. */
  private static double engineRuns() {
    Matcher runs =
        Pattern.compile(
                "^bolo_upstream_calls_total\\{engine=\"offline\",result=\"transcribed\"} (\\S+)$",
                Pattern.MULTILINE)
            .matcher(gateway.app().metrics().scrape());
    return runs.find() ? Double.parseDouble(runs.group(1)) : 0;
  }

  private static String state() {
    return browser.byId("status").getDomAttribute("data-state");
  }

  /** The note with silence before and after it, as the microphone's loop. */
  static byte[] withSilenceAround(byte[] wav) {
    ByteBuffer in = ByteBuffer.wrap(wav).order(ByteOrder.LITTLE_ENDIAN);
    int rate = in.getInt(24);
    int lead = (int) Math.round(LEAD_SECONDS * rate) * 2;
    int trail = (int) Math.round(TRAIL_SECONDS * rate) * 2;
    int data = wav.length - 44;
    ByteBuffer out = ByteBuffer.allocate(44 + lead + data + trail).order(ByteOrder.LITTLE_ENDIAN);
    out.put(wav, 0, 44);
    out.putInt(4, 36 + lead + data + trail);
    out.putInt(40, lead + data + trail);
    out.position(44 + lead);
    out.put(wav, 44, data);
    return out.array();
  }

  static void awaitReady(Gateway gateway) throws Exception {
    Await.until(Duration.ofMinutes(2), "the gateway is ready", () -> isReady(gateway));
  }

  private static boolean isReady(Gateway gateway) {
    try (Response response =
        gateway
            .client()
            .newCall(new Request.Builder().url(gateway.url("/readyz")).build())
            .execute()) {
      return response.code() == 200;
    } catch (IOException e) {
      throw new UncheckedIOException("readiness not served", e);
    }
  }
}
