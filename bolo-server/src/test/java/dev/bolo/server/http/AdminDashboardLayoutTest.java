package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.testing.Browser;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.server.tls.LanAddresses;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * The operator dashboard cuts nothing off at a desktop's width (1280 CSS pixels) or a phone's
 * (390): not the sign-in page, and not the dashboard at its fullest, with a new device's code and
 * the certificate authority's fingerprint of a gateway serving HTTPS on the LAN, and charts whose
 * largest figure is minutes long. {@link Browser#cutOff} looks at every element; the pictures it
 * looked at are in {@code target/screenshots/admin-layout-*.png}.
 */
class AdminDashboardLayoutTest {

  private static final String ADMIN_TOKEN = "admin-token-0123456789abcdef";
  private static final Path NOTE = Path.of("..", "samples", "notes", "groceries.wav");

  /** A note of 4 min 41 s: the seconds chart's largest figure is then its longest label. */
  private static final int LONG_NOTE_MILLIS = 281_000;

  private static final int DESKTOP = 1280, PHONE = 390;

  @RegisterExtension
  final OpenAiGateway fixture =
      OpenAiGateway.onDemand(
          Map.of("BOLO_ADMIN_TOKEN", ADMIN_TOKEN, "BOLO_TLS", "on", "BOLO_HOST", "0.0.0.0"));

  @Test
  void nothingIsCutOffOnTheSignInPageOrTheFullestDashboardAtDesktopOrPhoneWidth() throws Exception {
    List<InetAddress> lan = LanAddresses.current();
    assertThat(lan)
        .as(
            "this machine has no LAN address to open the dashboard at; give it one (a LAN or dummy interface)")
        .isNotEmpty();
    Gateway gateway = fixture.start(Map.of());
    String dashboard = gateway.secureUrl(LanAddresses.urlHost(lan.getFirst()), "/admin");
    List<String> faults = new ArrayList<>();
    try (Browser browser =
        Browser.trusting(fixture.dataDir().resolve("tls").resolve("ca.crt"), NOTE)) {
      browser.open(dashboard);
      browser.await().until(ExpectedConditions.visibilityOfElementLocated(By.id("admin-token")));
      faults.addAll(lookAt(browser, "sign-in", DESKTOP, false));
      faults.addAll(lookAt(browser, "sign-in", PHONE, true));

      browser.byId("admin-token").sendKeys(ADMIN_TOKEN, Keys.ENTER);
      browser.await().until(d -> "Dashboard loaded.".equals(browser.text("admin-status")));
      browser.byId("device-name").sendKeys("kitchen", Keys.ENTER);
      browser
          .await()
          // The code's squares: the gateway has drawn it (POST /admin/api/qr).
          .until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#phone-qr svg path")));
      assertThat(browser.text("phone-advice")).contains("SHA-256 ");
      String token = browser.text("new-token").trim();
      Gateway.Reply reply =
          gateway.send(gateway.nativeUpload(token, TestAudio.wav(LONG_NOTE_MILLIS, 1)));
      assertThat(reply.status()).as(reply.body()).isEqualTo(200);
      browser.byId("usage-refresh").click();
      browser.await().until(d -> browser.text("seconds-summary").startsWith("4 min 41 s"));
      // The token shown once is not in a picture.
      browser.script("document.getElementById('new-token').textContent = 'token…'; return 1");

      faults.addAll(lookAt(browser, "dashboard", DESKTOP, false));
      faults.addAll(lookAt(browser, "dashboard", PHONE, true));
    }

    assertThat(faults).as("what the dashboard cuts off or leaves blank").isEmpty();
  }

  /**
   * What the page cuts off at {@code width}, once the charts are drawn at that width (they redraw
   * when the window's size changes), with a picture of it.
   */
  private static List<String> lookAt(Browser browser, String page, int width, boolean mobile) {
    String name = "admin-layout-" + page + "-" + width;
    browser.emulate(width, 900, mobile);
    try {
      browser.await().until(d -> chartsFit(browser));
      List<String> faults = new ArrayList<>();
      for (String fault : browser.cutOff()) {
        faults.add(name + ": " + fault);
      }
      return faults;
    } finally {
      browser.stopEmulating();
      browser.buildScreenshot(name, width, mobile);
    }
  }

  /** Whether every chart shown is drawn for its width on the screen now. */
  private static boolean chartsFit(Browser browser) {
    return Boolean.TRUE.equals(
        browser.script(
            "return [...document.querySelectorAll('.chart svg')]"
                + ".filter(s => s.getClientRects().length > 0)"
                + ".every(s => s.viewBox.baseVal.width"
                + " === Math.max(280, Math.round(s.getBoundingClientRect().width)))"));
  }
}
