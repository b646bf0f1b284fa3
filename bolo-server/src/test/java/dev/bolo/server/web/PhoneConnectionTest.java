package dev.bolo.server.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.testing.Browser;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.LogCapture;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.QrCodes;
import dev.bolo.server.tls.LanAddresses;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * A phone joins as the README's new user would have it: the gateway serves HTTPS with a certificate
 * of its own authority ({@code BOLO_TLS=on}), the operator adds a device on the dashboard, and the
 * QR code it shows opens the dictation page with the device's token in place, ready to record.
 * Chromium plays the phone: it trusts the gateway's authority as a phone does once its owner
 * installed it (a certificate store of its own, not {@code --ignore-certificate-errors}), so the
 * certificate chain, its names and its purposes are checked as a browser checks them.
 */
class PhoneConnectionTest {

  private static final String ADMIN_TOKEN = "admin-token-0123456789abcdef";
  private static final Path NOTE = Path.of("..", "samples", "notes", "groceries.wav");
  private static final Path GUIDE = Path.of("..", "docs", "connect-a-phone.md");

  /** The guide's text before its first section. */
  private static final Pattern GUIDE_OPENING = Pattern.compile("(?s)\\A(.*?)\n## ");

  @RegisterExtension
  final OpenAiGateway fixture =
      OpenAiGateway.onDemand(Map.of("BOLO_ADMIN_TOKEN", ADMIN_TOKEN, "BOLO_TLS", "on"));

  /**
   * On loopback: the dashboard opened at https://localhost shows a code for that address (and says
   * a phone cannot reach it); opening the code's address over HTTPS keeps the token, takes it out
   * of the address bar, and a note recorded with the microphone comes back as text. The token never
   * reaches the gateway's log, and no request carried it but as a bearer token.
   */
  @Test
  void theCodeOfANewDeviceOpensTheDictationPageOverHttpsWithItsTokenReadyToRecord()
      throws Exception {
    try (LogCapture log = LogCapture.start()) {
      Gateway gateway = fixture.start(Map.of());
      String origin = gateway.secureUrl("localhost", "");
      String token;
      try (Browser phone = Browser.trusting(authority(), microphone())) {
        token = addDevice(phone, origin + "/admin", "phone");

        String scanned = scan(phone);

        assertThat(scanned).isEqualTo(origin + "/#token=" + token);
        assertThat(phone.text("phone-advice")).contains("cannot reach localhost:");
        phone.open(scanned);
        phone.await().until(d -> phone.text("status").contains("Ready"));
        assertThat(phone.driver().getCurrentUrl()).isEqualTo(origin + "/");
        assertThat(phone.script("return location.protocol + ' ' + window.isSecureContext"))
            .isEqualTo("https: true");
        assertThat(phone.script("return localStorage.getItem('bolo.token')")).isEqualTo(token);
        assertThat(phone.byId("token").getDomProperty("value")).isEqualTo(token);

        phone.byId("record").click();
        phone.await().until(d -> "recording".equals(state(phone)));
        phone.await().until(ExpectedConditions.textToBe(By.id("elapsed"), "0:03"));
        phone.byId("stop").click();
        phone.await().until(d -> List.of("done", "error").contains(state(phone)));

        assertThat(state(phone)).as(phone.text("status")).isEqualTo("done");
        assertThat(phone.text("transcript")).isNotBlank();
        assertThat(fixture.provider().calls()).isEqualTo(1);
        // Reloaded, the page keeps the token as it keeps a pasted one.
        phone.open(origin + "/");
        assertThat(phone.byId("token").getDomProperty("value")).isEqualTo(token);
      }
      assertThat(log.text()).contains("phone").doesNotContain(token);
    }
  }

  /**
   * On every address: the dashboard opened at the machine's LAN address offers that address, and
   * tells the operator to have the phone trust the authority first, with its fingerprint; the
   * certificate covers the address, so the page opens there.
   */
  @Test
  void onTheLanTheCodeCarriesTheAddressTheDashboardWasOpenedAtAndTheAuthorityToTrust()
      throws Exception {
    List<InetAddress> lan = LanAddresses.current();
    // Not skipped: the machines this suite runs on have an address besides loopback (here
    // 192.0.2.2 and fd00::2); without one this test cannot come from elsewhere, and says so.
    assertThat(lan)
        .as(
            "this machine has no LAN address to open the dashboard at; give it one (a LAN or dummy interface)")
        .isNotEmpty();
    Gateway gateway = fixture.start(Map.of("BOLO_HOST", "0.0.0.0"));
    String origin = gateway.secureUrl(LanAddresses.urlHost(lan.getFirst()), "");
    try (Browser phone = Browser.trusting(authority(), microphone())) {
      String token = addDevice(phone, origin + "/admin", "tablet");

      assertThat(scan(phone)).isEqualTo(origin + "/#token=" + token);
      String fingerprint =
          Objects.requireNonNull(gateway.app().phones().authority()).sha256Fingerprint();
      assertThat(phone.text("phone-advice"))
          .contains(origin + "/ca.crt")
          .contains(fingerprint)
          .contains("docs/connect-a-phone.md");

      phone.open(origin + "/#token=" + token);
      phone.await().until(d -> phone.text("status").contains("Ready"));
      assertThat(phone.byId("token").getDomProperty("value")).isEqualTo(token);
    }
  }

  /**
   * Over plain HTTP from another machine (no {@code --tls}), the page cannot record, and says so as
   * soon as it loads, before anyone presses Record; connect-a-phone.md's opening says what the page
   * shows there, in the page's own words.
   */
  @Test
  void overPlainHttpOnTheLanThePageSaysAtOnceThatItCannotRecordAsTheGuideSays() throws Exception {
    List<InetAddress> lan = LanAddresses.current();
    assertThat(lan)
        .as(
            "this machine has no LAN address to open the page at; give it one (a LAN or dummy interface)")
        .isNotEmpty();
    Gateway gateway = fixture.start(Map.of("BOLO_HOST", "0.0.0.0", "BOLO_TLS", "off"));
    String page =
        "http://" + LanAddresses.urlHost(lan.getFirst()) + ":" + gateway.app().port() + "/";
    String shown;
    try (Browser phone = Browser.start()) {
      phone.open(page);
      phone.await().until(d -> !phone.text("status").isBlank());

      assertThat(phone.script("return window.isSecureContext")).isEqualTo(false);
      shown = phone.text("status");
      assertThat(state(phone)).as(shown).isEqualTo("error");
      assertThat(shown).startsWith("This browser records only from a page opened over HTTPS");
    }
    String opening =
        GUIDE_OPENING.matcher(Files.readString(GUIDE)).results().findFirst().orElseThrow().group(1);
    String firstSentence = shown.substring(0, shown.indexOf(". ") + 1);
    assertThat(opening.replaceAll("\\s+", " "))
        .as("connect-a-phone.md's opening")
        .contains(firstSentence.substring(0, firstSentence.length() - 1))
        .doesNotContain("Ready");
  }

  /** Signs in, adds the device {@code name} and returns its token, as the dashboard shows it. */
  private static String addDevice(Browser phone, String dashboard, String name) {
    phone.open(dashboard);
    phone.byId("admin-token").sendKeys(ADMIN_TOKEN, Keys.ENTER);
    phone.await().until(d -> "Dashboard loaded.".equals(phone.text("admin-status")));
    phone.byId("device-name").sendKeys(name, Keys.ENTER);
    phone
        .await()
        // The code's squares: the gateway has drawn it (POST /admin/api/qr).
        .until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#phone-qr svg path")));
    return phone.text("new-token").trim();
  }

  /**
   * What a phone's camera reads from the code the dashboard shows, held on it until it reads as a
   * camera is: the dashboard may draw the code again as the addresses it offers arrive, and a
   * picture taken meanwhile shows no code. A code that never reads fails with the last reading.
   */
  private static String scan(Browser phone) {
    return phone
        .await()
        .ignoring(AssertionError.class)
        .until(
            d -> {
              WebElement code = phone.driver().findElement(By.cssSelector("#phone-qr svg"));
              // As a person scrolls to it: the card shows the token and webhook secret above it.
              ((JavascriptExecutor) phone.driver())
                  .executeScript("arguments[0].scrollIntoView({block: 'center'})", code);
              return QrCodes.read(code.getScreenshotAs(OutputType.BYTES));
            });
  }

  private Path authority() {
    return fixture.dataDir().resolve("tls").resolve("ca.crt");
  }

  private Path microphone() throws Exception {
    Path microphone = fixture.dataDir().resolve("microphone.wav");
    if (!Files.exists(microphone)) {
      Files.write(microphone, DictationPageTest.withSilenceAround(Files.readAllBytes(NOTE)));
    }
    return microphone;
  }

  private static String state(Browser phone) {
    return String.valueOf(phone.byId("status").getDomAttribute("data-state"));
  }
}
