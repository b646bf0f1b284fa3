package dev.bolo.server.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import org.jspecify.annotations.Nullable;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * A headless Chromium for the tests of the gateway's pages: Debian's {@code chromium} driven by
 * Selenium through Debian's {@code chromium-driver}, never a downloaded browser. A test opens one
 * per class or per test ({@code try (Browser browser = Browser.start())}), optionally with a fake
 * microphone that plays a WAV file in a loop and is allowed without a prompt. Missing packages fail
 * the test with what to install rather than skip it. Not thread safe: one test drives it.
 */
public final class Browser implements AutoCloseable {

  /** Where Debian installs them ({@code apt-get install chromium chromium-driver}). */
  public static final Path CHROMIUM = Path.of("/usr/bin/chromium");

  public static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

  /**
   * Long enough for a fresh offline transcription on a loaded two-core machine (it can take longer
   * than the page's 30 s read timeout, and the page then resends); a passing wait returns as soon
   * as it holds.
   */
  public static final Duration WAIT = Duration.ofMinutes(2);

  private final ChromeDriver driver;

  private Browser(@Nullable Path microphone) {
    for (Path program : List.of(CHROMIUM, CHROMEDRIVER)) {
      if (!Files.isExecutable(program)) {
        throw new AssertionError(
            program
                + " is missing, so the pages cannot be tested in a browser; install Debian's"
                + " chromium and chromium-driver (apt-get install chromium chromium-driver;"
                + " .ci/run does this)");
      }
    }
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments(
        "--headless=new",
        // The tests may run as root in a container, where Chromium's sandbox cannot start.
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--window-size=1280,900",
        "--no-first-run",
        "--use-fake-ui-for-media-stream",
        "--use-fake-device-for-media-stream");
    if (microphone != null) {
      options.addArguments("--use-file-for-fake-audio-capture=" + microphone.toAbsolutePath());
    }
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.BROWSER, Level.ALL);
    options.setCapability("goog:loggingPrefs", logs);
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(CHROMEDRIVER.toFile())
            .usingAnyFreePort()
            .build();
    this.driver = new ChromeDriver(service, options);
  }

  /** A browser whose microphone (if a page asks) is Chromium's synthetic beep. */
  public static Browser start() {
    return new Browser(null);
  }

  /** A browser whose microphone plays {@code wav} (PCM WAV) in a loop, allowed without asking. */
  public static Browser withMicrophone(Path wav) {
    return new Browser(wav);
  }

  public ChromeDriver driver() {
    return driver;
  }

  public void open(String url) {
    driver.get(url);
  }

  /** The element with this id. */
  public WebElement byId(String id) {
    return driver.findElement(By.id(id));
  }

  /** The text of the element with this id, as a person sees it. */
  public String text(String id) {
    return byId(id).getText();
  }

  /** A wait that polls often, so a state shown for a moment is still seen. */
  public WebDriverWait await() {
    WebDriverWait wait = new WebDriverWait(driver, WAIT, Duration.ofMillis(50));
    wait.ignoring(org.openqa.selenium.StaleElementReferenceException.class);
    return wait;
  }

  /**
   * Sets the viewport to {@code width} × {@code height} CSS pixels (a phone when {@code mobile})
   * and writes a screenshot of it to {@code file}.
   */
  public Path screenshot(Path file, int width, int height, boolean mobile) {
    driver.executeCdpCommand(
        "Emulation.setDeviceMetricsOverride",
        Map.of("width", width, "height", height, "deviceScaleFactor", 1, "mobile", mobile));
    try {
      byte[] png = driver.getScreenshotAs(OutputType.BYTES);
      Files.createDirectories(file.toAbsolutePath().getParent());
      Files.write(file, png);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      driver.executeCdpCommand("Emulation.clearDeviceMetricsOverride", Map.of());
    }
    return file;
  }

  /** What the page wrote to its console, or the browser reported for it, since the last call. */
  public List<String> consoleMessages() {
    List<String> messages = new ArrayList<>();
    for (LogEntry entry : driver.manage().logs().get(LogType.BROWSER)) {
      messages.add(entry.getLevel() + " " + entry.getMessage());
    }
    return messages;
  }

  /**
   * Runs axe-core (the file {@code axe.min.js} of its npm package) in the open page and returns its
   * violations as JSON: an array of {@code {id, impact, help, nodes}}.
   */
  public String axeViolations(Path axeScript) {
    String axe;
    try {
      axe = Files.readString(axeScript, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    // Injected through the driver, which the page's Content-Security-Policy does not govern.
    driver.executeScript(axe);
    Object result =
        driver.executeAsyncScript(
            "const done = arguments[arguments.length - 1];"
                + "axe.run(document, {resultTypes: ['violations']})"
                + ".then(r => done(JSON.stringify(r.violations.map(v =>"
                + " ({id: v.id, impact: v.impact, help: v.help,"
                + " nodes: v.nodes.map(n => n.target.join(' '))})))))"
                + ".catch(e => done('axe failed: ' + e));");
    return String.valueOf(result);
  }

  @Override
  public void close() {
    driver.quit();
  }
}
