package dev.bolo.server.testing;

import dev.bolo.testkit.Directories;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
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

  /** Debian's {@code libnss3-tools}: writes the certificate store Chromium reads on Linux. */
  public static final Path CERTUTIL = Path.of("/usr/bin/certutil");

  /**
   * Where {@link #pageScreenshot} also writes, when set: a folder, relative to the repository's
   * root ({@code -Dbolo.screenshots=docs/screenshots} regenerates the documentation's pictures).
   */
  public static final String SCREENSHOTS_PROPERTY = "bolo.screenshots";

  /** Where {@link #pageScreenshot} always writes: the build's own folder, never the sources. */
  public static final Path SCREENSHOTS = Path.of("target", "screenshots");

  /** Tallest page screenshot: a long page is cut here rather than made a huge file. */
  private static final int MAX_SCREENSHOT_HEIGHT = 6000;

  private final ChromeDriver driver;
  private final @Nullable Path home;

  /**
   * Chromium's temporary folder ({@code TMPDIR}), deleted on {@link #close()}: Chromium leaves its
   * process-singleton socket folder in the temporary folder, one per browser.
   */
  private final Path scratch;

  private Browser(
      @Nullable Path microphone, @Nullable Path trustedAuthority, Map<String, String> hosts) {
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
    if (!hosts.isEmpty()) {
      List<String> rules = new ArrayList<>();
      hosts.forEach((name, address) -> rules.add("MAP " + name + " " + address));
      options.addArguments("--host-resolver-rules=" + String.join(", ", rules));
    }
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.BROWSER, Level.ALL);
    options.setCapability("goog:loggingPrefs", logs);
    ChromeDriverService.Builder service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(CHROMEDRIVER.toFile())
            .usingAnyFreePort();
    this.home = trustedAuthority == null ? null : homeTrusting(trustedAuthority);
    try {
      this.scratch = Files.createTempDirectory("bolo-browser-tmp-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot make a temporary folder for Chromium", e);
    }
    Map<String, String> environment = new HashMap<>(Map.of("TMPDIR", scratch.toString()));
    if (home != null) {
      // Chromium on Linux reads the certificates a user trusts from $HOME/.pki/nssdb.
      environment.put("HOME", home.toString());
    }
    service.withEnvironment(environment);
    this.driver = new ChromeDriver(service.build(), options);
  }

  /** A browser whose microphone (if a page asks) is Chromium's synthetic beep. */
  public static Browser start() {
    return new Browser(null, null, Map.of());
  }

  /** A browser whose microphone plays {@code wav} (PCM WAV) in a loop, allowed without asking. */
  public static Browser withMicrophone(Path wav) {
    return new Browser(wav, null, Map.of());
  }

  /**
   * A browser that trusts the certificate authority {@code certificate} (PEM or DER), as a phone
   * does once its owner installed it, and whose microphone plays {@code wav}. The trust is that of
   * a home folder of its own, deleted on {@link #close()}: nothing of the machine's changes.
   */
  public static Browser trusting(Path certificate, Path wav) {
    return new Browser(wav, certificate, Map.of());
  }

  /**
   * A browser that trusts the certificate authority {@code certificate}, as {@link #trusting(Path,
   * Path)}, and finds each host name of {@code hosts} at its address, as a network's DNS would
   * answer (Chromium's host resolver rules): a test's server on loopback can stand for any site.
   */
  public static Browser trusting(Path certificate, Map<String, String> hosts) {
    return new Browser(null, certificate, hosts);
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
   * The whole open page at {@code width} CSS pixels (a phone when {@code mobile}), as {@code
   * NAME.png} in {@link #SCREENSHOTS}, and also in the folder {@link #SCREENSHOTS_PROPERTY} names
   * when it is set.
   *
   * @return the file in {@link #SCREENSHOTS}
   */
  public Path pageScreenshot(String name, int width, boolean mobile) {
    return screenshot(name, width, mobile, true);
  }

  /**
   * The whole open page at {@code width} CSS pixels, as {@code NAME.png} in {@link #SCREENSHOTS}
   * only: a picture for the person who reads a test's result, never one of the documentation's.
   */
  public Path buildScreenshot(String name, int width, boolean mobile) {
    return screenshot(name, width, mobile, false);
  }

  private Path screenshot(String name, int width, boolean mobile, boolean forDocs) {
    emulate(width, 800, mobile);
    try {
      Object measured = driver.executeScript("return document.documentElement.scrollHeight");
      long height = measured instanceof Number number ? number.longValue() : 800;
      emulate(width, (int) Math.min(height, MAX_SCREENSHOT_HEIGHT), mobile);
      byte[] png = driver.getScreenshotAs(OutputType.BYTES);
      Path file = SCREENSHOTS.resolve(name + ".png");
      Files.createDirectories(SCREENSHOTS);
      Files.write(file, png);
      String docs = System.getProperty(SCREENSHOTS_PROPERTY);
      if (forDocs && docs != null && !docs.isBlank()) {
        // Tests run in the module's folder; the property names a folder of the repository.
        Path folder = Path.of("..").resolve(docs.strip());
        Files.createDirectories(folder);
        Files.write(folder.resolve(name + ".png"), png);
      }
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      stopEmulating();
    }
  }

  /**
   * Shows pages at {@code width} × {@code height} CSS pixels from now on, as a phone's screen when
   * {@code mobile} (its viewport tag applies), until {@link #stopEmulating()}.
   */
  public void emulate(int width, int height, boolean mobile) {
    driver.executeCdpCommand(
        "Emulation.setDeviceMetricsOverride",
        Map.of("width", width, "height", height, "deviceScaleFactor", 1, "mobile", mobile));
  }

  /** Back to the window's own size. */
  public void stopEmulating() {
    driver.executeCdpCommand("Emulation.clearDeviceMetricsOverride", Map.of());
  }

  /** Runs {@code script} in the page and returns its answer, which must not be null. */
  public Object script(String script, Object... arguments) {
    Object answer = driver.executeScript(script, arguments);
    if (answer == null) {
      throw new AssertionError("the script answered nothing: " + script);
    }
    return answer;
  }

  /**
   * What the open page cuts off or leaves blank, as it is laid out now, one line per fault: text
   * that runs past a box that does not scroll (the innermost such box), a box off the left or right
   * edge of the screen outside a scrolling box, an SVG text outside its picture's {@code viewBox},
   * and an empty box (no text, no picture, no field, no background or border of its own) that still
   * holds a line's room. What a page hides on purpose (a {@code clip-path}, as a table's header is
   * hidden at phone width) is not looked at. Empty when nothing is cut off.
   */
  public List<String> cutOff() {
    List<String> faults = new ArrayList<>();
    for (Object fault : (List<?>) script(CUT_OFF_SCRIPT)) {
      faults.add(String.valueOf(fault));
    }
    return faults;
  }

  /** {@link #cutOff}'s look at the page; one pass over every element. */
  private static final String CUT_OFF_SCRIPT =
      """
      const faults = [];
      const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')
        + (typeof e.className === 'string' && e.className.trim()
          ? '.' + e.className.trim().split(/\\s+/).join('.') : '');
      const style = (e) => getComputedStyle(e);
      const hiddenOnPurpose = (e) => {
        for (let a = e; a; a = a.parentElement) {
          if (style(a).clipPath !== 'none') return true;
        }
        return false;
      };
      const scrolls = (e) => ['auto', 'scroll'].includes(style(e).overflowX);
      const inScroller = (e) => {
        for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
          if (scrolls(a)) return true;
        }
        return false;
      };
      const fields = ['INPUT', 'SELECT', 'TEXTAREA', 'BUTTON', 'IMG', 'OUTPUT'];
      const shown = [...document.body.querySelectorAll('*')].filter((e) =>
        !(e instanceof SVGElement && e.tagName.toLowerCase() !== 'svg')
        && e.getClientRects().length > 0 && style(e).visibility !== 'hidden'
        && !hiddenOnPurpose(e));
      const overflowing = shown.filter((e) => !fields.includes(e.tagName)
        && !scrolls(e) && style(e).display !== 'inline' && e.clientWidth > 0
        && e.scrollWidth > e.clientWidth + 1);
      for (const e of overflowing) {
        if (!overflowing.some((inner) => inner !== e && e.contains(inner))) {
          faults.push(name(e) + ': its content is ' + e.scrollWidth + ' px wide in a box of '
            + e.clientWidth + ' px that does not scroll: "'
            + e.textContent.trim().slice(0, 60) + '"');
        }
      }
      for (const e of shown) {
        const r = e.getBoundingClientRect();
        if (r.width > 0 && (r.left < -1 || r.right > window.innerWidth + 1) && !inScroller(e)) {
          faults.push(name(e) + ': off the screen at ' + Math.round(r.left) + '..'
            + Math.round(r.right) + ' of ' + window.innerWidth + ' px');
        }
      }
      for (const text of document.querySelectorAll('svg text')) {
        const box = text.getBBox();
        const view = text.ownerSVGElement.viewBox.baseVal;
        if (text.getClientRects().length > 0 && view && view.width > 0
          && (box.x < view.x - 0.5 || box.x + box.width > view.x + view.width + 0.5
            || box.y < view.y - 0.5 || box.y + box.height > view.y + view.height + 0.5)) {
          faults.push(name(text.ownerSVGElement) + ': the text "' + text.textContent
            + '" lies at ' + Math.round(box.x) + '..' + Math.round(box.x + box.width)
            + ' outside its picture, 0..' + Math.round(view.width));
        }
      }
      for (const e of shown) {
        const s = style(e);
        const own = s.backgroundColor !== 'rgba(0, 0, 0, 0)' || s.borderTopWidth !== '0px'
          || s.backgroundImage !== 'none';
        const r = e.getBoundingClientRect();
        if (!['block', 'flex', 'grid'].includes(s.display) || own || r.height <= 2
          || e.textContent.trim() !== '' || fields.includes(e.tagName)
          || e.querySelector('svg, img, input, select, textarea, button, output, canvas')) {
          continue;
        }
        faults.push(name(e) + ': empty, and holds ' + Math.round(r.height) + ' px of room');
      }
      for (const box of shown) {
        const s = style(box);
        const own = s.backgroundColor !== 'rgba(0, 0, 0, 0)' || s.borderTopWidth !== '0px';
        const first = [...box.children].find((c) => shown.includes(c)
          && !['absolute', 'fixed'].includes(style(c).position));
        if (!own || !first || fields.includes(box.tagName) || box instanceof SVGElement) {
          continue;
        }
        const gap = first.getBoundingClientRect().top - box.getBoundingClientRect().top
          - parseFloat(s.borderTopWidth) - parseFloat(s.paddingTop);
        if (gap > 2) {
          faults.push(name(box) + ': ' + Math.round(gap) + ' px blank above its first part, '
            + name(first));
        }
      }
      return faults;
      """;

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

  /**
   * A home folder whose certificate store (NSS, {@code .pki/nssdb}) trusts {@code certificate} to
   * identify web servers, written with {@code certutil}.
   */
  private static Path homeTrusting(Path certificate) {
    if (!Files.isExecutable(CERTUTIL)) {
      throw new AssertionError(
          CERTUTIL
              + " is missing, so Chromium cannot be told to trust a test's certificate authority;"
              + " install Debian's libnss3-tools (.ci/run does this)");
    }
    try {
      Path home = Files.createTempDirectory("bolo-browser-home-");
      Path store = Files.createDirectories(home.resolve(".pki").resolve("nssdb"));
      String database = "sql:" + store;
      run(List.of(CERTUTIL.toString(), "-d", database, "-N", "--empty-password"));
      run(
          List.of(
              CERTUTIL.toString(),
              "-d",
              database,
              "-A",
              "-t",
              "C,,",
              "-n",
              "bolo test authority",
              "-i",
              certificate.toAbsolutePath().toString()));
      return home;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot make a home folder for Chromium", e);
    }
  }

  private static void run(List<String> command) throws IOException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (!process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS) || process.exitValue() != 0) {
        process.destroyForcibly();
        throw new AssertionError(String.join(" ", command) + " failed: " + output);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while " + command.getFirst() + " ran", e);
    }
  }

  @Override
  public void close() {
    driver.quit();
    try {
      Directories.deleteTree(scratch);
      if (home != null) {
        Directories.deleteTree(home);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
