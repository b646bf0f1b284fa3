package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.ledger.WebhookOutbox;
import dev.bolo.server.testing.Browser;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import dev.bolo.testkit.NodePackage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The operator dashboard in a real browser: Debian's {@code chromium} driven headless through
 * {@code chromium-driver} (both installed by {@code .ci/run}; without them this test fails and says
 * what to install). The page runs under the gateway's strict Content-Security-Policy, and axe-core
 * (npm, the version pinned in {@code src/test/node/browser}) checks its accessibility. Screenshots
 * at phone and desktop width go to {@code target/screenshots/} (and, with {@code
 * -Dbolo.screenshots=docs/screenshots}, to the documentation's pictures).
 */
class AdminDashboardBrowserTest {

  private static final String ADMIN_TOKEN = "admin-token-0123456789abcdef";
  private static final Path NOTE = Path.of("..", "samples", "notes", "groceries.wav");

  /** Long enough for a loaded two-core machine; a passing wait returns as soon as it holds. */
  private static final Duration WAIT = Duration.ofMinutes(1);

  private static String axeScript = "";

  /** A job's receiver where nothing listens (the discard port): each delivery is refused. */
  private static final String NOBODY = "127.0.0.1:9";

  @RegisterExtension
  final OpenAiGateway fixture =
      new OpenAiGateway(Map.of("BOLO_ADMIN_TOKEN", ADMIN_TOKEN, "BOLO_WEBHOOK_HTTP_HOSTS", NOBODY));

  private Browser chromium;
  private ChromeDriver browser;
  private WebDriverWait wait;

  @BeforeAll
  static void installAxe() throws IOException, InterruptedException {
    axeScript =
        Files.readString(
            NodePackage.install("node/browser", "axe-core/axe.min.js")
                .path("node_modules/axe-core/axe.min.js"),
            StandardCharsets.UTF_8);
  }

  @BeforeEach
  void start() throws IOException {
    // The dictation page records from this note (the provider stand-in answers any audio).
    Path microphone = Files.copy(NOTE, fixture.dataDir().resolve("microphone.wav"));
    chromium = Browser.withMicrophone(microphone);
    browser = chromium.driver();
    wait = new WebDriverWait(browser, WAIT);
  }

  @AfterEach
  void stop() {
    chromium.close();
  }

  @AfterAll
  static void forgetAxe() {
    axeScript = "";
  }

  /** Adds a device through the dashboard's form and returns the token it shows once. */
  private String addDevice(String name) {
    browser.findElement(By.id("device-name")).sendKeys(name, Keys.ENTER);
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("new-token-box")));
    return browser.findElement(By.id("new-token")).getText().trim();
  }

  private Gateway gateway() {
    return fixture.gateway();
  }

  @Test
  void anOperatorAddsADeviceSeesItsRequestInTheChartAndRevokesItByKeyboard() throws Exception {
    signIn();

    // Keyboard only: type the name and press Enter.
    String token = addDevice("kitchen");
    assertThat(token).hasSizeGreaterThan(20);
    wait.until(
        ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-device='kitchen']")));
    // Over plain HTTP no code carries the token: only the advice to serve HTTPS shows.
    wait.until(d -> !d.findElement(By.id("phone-advice")).getText().isEmpty());
    assertThat(browser.findElements(By.cssSelector("#phone-qr svg"))).isEmpty();

    // Its webhook secret shows beside the token; a rotation shows a new one.
    String secret = browser.findElement(By.id("new-webhook-secret")).getText().trim();
    assertThat(secret).startsWith("whsec_");
    wait.until(
        ExpectedConditions.presenceOfElementLocated(
            By.cssSelector("#secret-device option[value='kitchen']")));
    new Select(browser.findElement(By.id("secret-device"))).selectByValue("kitchen");
    browser.findElement(By.id("secret-rotate")).click();
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("new-secret-box")));
    assertThat(browser.findElement(By.id("new-secret")).getText().trim())
        .startsWith("whsec_")
        .isNotEqualTo(secret);

    // A person pastes the new token into the dictation page and records a note with it.
    assertThat(policyViolations()).isEmpty();
    dictate(token);
    returnToDashboard();

    new Select(browser.findElement(By.id("usage-device"))).selectByValue("kitchen");
    new Select(browser.findElement(By.id("range"))).selectByValue("hour");
    wait.until(d -> requestsInChart() == 1 && barsInChart() == 60);
    assertThat(figure("requests")).isEqualTo("1");
    assertThat(figure("unique-notes")).isEqualTo("1");
    assertThat(figure("seconds-charged")).endsWith(" s").isNotEqualTo("0 s");
    new Select(browser.findElement(By.id("range"))).selectByValue("30d");
    wait.until(d -> barsInChart() == 30 && requestsInChart() == 1);

    WebElement revoke = browser.findElement(By.cssSelector("button[data-revoke='kitchen']"));
    assertThat(revoke.getAttribute("aria-label")).isEqualTo("Revoke kitchen");
    revoke.sendKeys(Keys.ENTER);
    wait.until(ExpectedConditions.alertIsPresent()).accept();
    wait.until(
        ExpectedConditions.textToBe(
            By.cssSelector("tr[data-device='kitchen'] td:nth-of-type(1)"), "revoked"));
    assertThat(browser.findElements(By.cssSelector("button[data-revoke='kitchen']"))).isEmpty();

    assertThat(policyViolations()).isEmpty();

    // The same token on the dictation page is now refused, in the page's plain words.
    browser.get(gateway().url("/"));
    watchPolicyViolations();
    browser.findElement(By.id("token")).clear();
    browser.findElement(By.id("token")).sendKeys(token, Keys.TAB);
    wait.until(d -> "error".equals(pageState()));
    assertThat(browser.findElement(By.id("status")).getText()).startsWith("Token refused");
    assertThat(policyViolations()).isEmpty();
  }

  @Test
  void theLivePanelRefreshesAndTheTokenStaysOutOfUrlsCookiesAndTheDocument() {
    signIn();

    wait.until(
        ExpectedConditions.textMatches(
            By.cssSelector("#readiness li[data-component='ledger']"),
            java.util.regex.Pattern.compile("ledger: ready")));
    String firstRead = browser.findElement(By.id("live-at")).getText();
    wait.until(d -> !d.findElement(By.id("live-at")).getText().equals(firstRead));

    assertThat(browser.getCurrentUrl()).doesNotContain(ADMIN_TOKEN);
    assertThat(script("return document.cookie")).isEqualTo("");
    assertThat(browser.getPageSource()).doesNotContain(ADMIN_TOKEN);
    assertThat(script("return sessionStorage.getItem('bolo.admin.token')")).isEqualTo(ADMIN_TOKEN);
    assertThat(script("return localStorage.length")).isEqualTo(0L);

    browser.findElement(By.id("sign-out")).click();
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("admin-token")));
    assertThat(script("return sessionStorage.getItem('bolo.admin.token')")).isNull();
    assertThat(policyViolations()).isEmpty();
  }

  @Test
  void aWrongAdminTokenIsRefusedInPlainWords() {
    browser.get(gateway().url("/admin"));
    watchPolicyViolations();

    browser.findElement(By.id("admin-token")).sendKeys("not-the-admin-token-at-all", Keys.ENTER);

    wait.until(
        ExpectedConditions.textToBePresentInElementLocated(
            By.id("admin-status"), "admin token was refused"));
    assertThat(browser.findElement(By.id("admin-token")).isDisplayed()).isTrue();
    assertThat(script("return sessionStorage.getItem('bolo.admin.token')")).isNull();
  }

  @Test
  void axeFindsNoSeriousViolationAndScreenshotsAreTakenAtPhoneAndDesktopWidth() throws Exception {
    signIn();
    String token = addDevice("kitchen");
    assertThat(gateway().send(gateway().nativeUpload(token, TestAudio.wav(2_000, 8))).status())
        .isEqualTo(200);
    assertThat(gateway().send(gateway().nativeUpload(token, TestAudio.wav(2_000, 8))).status())
        .isEqualTo(200);
    browser.findElement(By.id("usage-refresh")).click();
    wait.until(d -> requestsInChart() == 2);
    // One engine call: the second upload was a replay. The live panel shows it within 5 s.
    wait.until(
        ExpectedConditions.textToBe(By.cssSelector("#live dd[data-figure='engine-calls']"), "1"));
    // A job whose receiver never answers, given up on: the jobs panel lists its event.
    String webhookId = failedWebhookOfAJob(token);
    wait.until(ExpectedConditions.textToBe(By.cssSelector("#failed-webhooks tbody th"), webhookId));
    assertThat(browser.findElement(By.id("job-count-succeeded")).getText()).isEqualTo("1");
    assertThat(browser.findElement(By.cssSelector("#jobs tbody td:nth-of-type(1)")).getText())
        .isEqualTo("kitchen");
    // The token shown once is not in a screenshot meant for the docs.
    script("document.getElementById('new-token-box').hidden = true");

    List<?> violations = axeViolations();

    assertThat(violations).as("serious or critical accessibility violations").isEmpty();
    // The pictures of docs/screenshots (-Dbolo.screenshots=docs/screenshots, see the README).
    assertThat(chromium.pageScreenshot("admin-desktop", 1280, false)).isNotEmptyFile();
    assertThat(chromium.pageScreenshot("admin-phone", 390, true)).isNotEmptyFile();
    assertThat(Files.size(Browser.SCREENSHOTS.resolve("admin-phone.png"))).isGreaterThan(10_000);

    // "Send again" queues the event with its webhook-id; it leaves the failed list.
    browser.findElement(By.cssSelector("#failed-webhooks button.send-again")).click();
    wait.until(
        ExpectedConditions.textToBePresentInElementLocated(
            By.id("admin-status"), "Webhook " + webhookId + " queued again"));
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("failed-webhooks-empty")));
    assertThat(fixture.ledger().ledger().webhookOutbox().state(webhookId))
        .contains(WebhookOutbox.State.PENDING);
    assertThat(policyViolations()).isEmpty();
  }

  /**
   * Makes a job of {@code token}'s device whose webhook goes to {@link #NOBODY}, waits for its
   * first refused delivery and records the event given up, as 24 hours of refusals would leave it;
   * its {@code webhook-id}.
   */
  private String failedWebhookOfAJob(String token) throws IOException, InterruptedException {
    Gateway.Reply job =
        gateway()
            .send(
                Gateway.nativeUploadRequest(
                    gateway().url("/v1/jobs"),
                    token,
                    TestAudio.wav(1_000, 10),
                    "webhook_url",
                    "http://" + NOBODY + "/hook"));
    assertThat(job.status()).as(job.body()).isEqualTo(202);
    WebhookOutbox outbox = fixture.ledger().ledger().webhookOutbox();
    java.util.concurrent.atomic.AtomicReference<WebhookOutbox.Event> refused =
        new java.util.concurrent.atomic.AtomicReference<>();
    Await.until(
        WAIT,
        "the job's first delivery refused",
        () -> {
          outbox.due(java.time.Instant.now().plus(Duration.ofDays(1)), 10).stream()
              .filter(event -> event.attempts() >= 1)
              .findFirst()
              .ifPresent(refused::set);
          return refused.get() != null;
        });
    WebhookOutbox.Event event = refused.get();
    outbox.attempted(
        event.id(),
        WebhookOutbox.State.FAILED,
        event.attempts(),
        event.nextAttemptAt(),
        0,
        "connection refused");
    return event.id();
  }

  /**
   * At a phone's width (390 CSS pixels, an iPhone's) every table is a list of cards: each cell, the
   * devices' Charged, Remaining and Revoke included, lies within the screen, and nothing makes the
   * page scroll sideways. The pages' icon is served where browsers ask for it.
   */
  @Test
  void atPhoneWidthEveryTableCellIsOnScreenAndTheIconIsServed() throws Exception {
    signIn();
    String token = addDevice("kitchen-counter-tablet");
    assertThat(gateway().send(gateway().nativeUpload(token, TestAudio.wav(2_000, 9))).status())
        .isEqualTo(200);
    browser.findElement(By.id("usage-refresh")).click();
    wait.until(d -> requestsInChart() == 1);
    script("document.querySelector('#usage-heading ~ details').open = true");

    chromium.emulate(390, 844, true);
    try {
      wait.until(d -> number("return window.innerWidth") == 390);
      List<?> cut =
          (List<?>)
              chromium.script(
                  "return [...document.querySelectorAll('table th, table td')]"
                      + ".filter(c => c.offsetParent !== null && c.getClientRects().length > 0)"
                      + ".map(c => [c, c.getBoundingClientRect()])"
                      + ".filter(([c, r]) => r.left < 0 || r.right > window.innerWidth)"
                      + ".map(([c, r]) => c.closest('table').id + ' ' + (c.dataset.label || '')"
                      + " + ': ' + c.textContent + ' at ' + r.left + '..' + r.right)");
      assertThat(cut).as("table cells off a 390 px screen").isEmpty();
      assertThat(
              number(
                  "return document.querySelectorAll('#devices td[data-label=\"Remaining\"]')"
                      + ".length"))
          .isEqualTo(3);
      assertThat(number("return document.documentElement.scrollWidth - window.innerWidth"))
          .isLessThanOrEqualTo(0L);
    } finally {
      chromium.stopEmulating();
    }
    Object icon =
        browser.executeAsyncScript(
            "const done = arguments[arguments.length - 1];"
                + "fetch('/favicon.ico').then(r => r.arrayBuffer().then(b =>"
                + " done(r.status + ' ' + r.headers.get('content-type') + ' '"
                + " + new Uint8Array(b).slice(0, 4).join(','))));");
    assertThat(icon).isEqualTo("200 image/x-icon 0,0,1,0");
  }

  /** Opens the dictation page, pastes {@code token} and records a note until it is transcribed. */
  private void dictate(String token) {
    browser.get(gateway().url("/"));
    watchPolicyViolations();
    browser.findElement(By.id("token")).sendKeys(token, Keys.TAB);
    wait.until(d -> browser.findElement(By.id("status")).getText().startsWith("Ready"));
    browser.findElement(By.id("record")).click();
    wait.until(d -> "recording".equals(pageState()));
    wait.until(ExpectedConditions.textToBe(By.id("elapsed"), "0:05"));
    browser.findElement(By.id("stop")).click();
    wait.until(d -> "done".equals(pageState()) || "error".equals(pageState()));
    assertThat(pageState()).as(browser.findElement(By.id("status")).getText()).isEqualTo("done");
    assertThat(browser.findElement(By.id("transcript")).getText()).isNotBlank();
    assertThat(policyViolations()).isEmpty();
  }

  private String pageState() {
    return String.valueOf(browser.findElement(By.id("status")).getDomAttribute("data-state"));
  }

  /** Back on the dashboard, still signed in: the admin token lives in this tab's session. */
  private void returnToDashboard() {
    browser.get(gateway().url("/admin"));
    watchPolicyViolations();
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("dashboard")));
  }

  private void signIn() {
    browser.get(gateway().url("/admin"));
    watchPolicyViolations();
    browser.findElement(By.id("admin-token")).sendKeys(ADMIN_TOKEN, Keys.ENTER);
    wait.until(ExpectedConditions.textToBe(By.id("admin-status"), "Dashboard loaded."));
    assertThat(browser.findElement(By.id("dashboard")).isDisplayed()).isTrue();
  }

  /**
   * Collects Content-Security-Policy violations from here on: a blocked script, style or request
   * the page tried. The page's own script running at all shows the initial load passed.
   */
  private void watchPolicyViolations() {
    script(
        "window.__violations = [];"
            + "document.addEventListener('securitypolicyviolation',"
            + " e => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));");
  }

  private List<?> policyViolations() {
    return (List<?>) Objects.requireNonNull(script("return window.__violations"), "violations");
  }

  private long requestsInChart() {
    return number(
        "return [...document.querySelectorAll('#requests-chart g.bar')]"
            + ".reduce((sum, g) => sum + Number(g.dataset.requests), 0)");
  }

  private long barsInChart() {
    return number("return document.querySelectorAll('#requests-chart g.bar').length");
  }

  private String figure(String name) {
    return browser
        .findElement(By.cssSelector("#usage-totals dd[data-figure='" + name + "']"))
        .getText();
  }

  /** Runs axe-core in the page and returns its serious and critical violations. */
  private List<?> axeViolations() {
    script(axeScript);
    Object result =
        browser.executeAsyncScript(
            "const done = arguments[arguments.length - 1];"
                + "axe.run(document, {resultTypes: ['violations']})"
                + ".then(r => done(r.violations"
                + ".filter(v => v.impact === 'serious' || v.impact === 'critical')"
                + ".map(v => v.id + ': ' + v.help + ' ' + v.nodes.map(n => n.target).join(' '))))"
                + ".catch(e => done(['axe failed: ' + e]));");
    return (List<?>) Objects.requireNonNull(result, "axe's answer");
  }

  private @Nullable Object script(String source) {
    return ((JavascriptExecutor) browser).executeScript(source);
  }

  /** A script's numeric answer. */
  private long number(String source) {
    return ((Number) Objects.requireNonNull(script(source), source)).longValue();
  }
}
