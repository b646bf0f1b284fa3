package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bolo.server.testing.QrCodes;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's QR code as the gateway draws it: the SVG's squares, painted as a phone's camera
 * would see them, read back by ZXing's decoder as the text drawn.
 */
class QrCodeSvgTest {

  private static final Pattern SQUARE = Pattern.compile("M(\\d+) (\\d+)h1v1h-1z");
  private static final Pattern VIEW_BOX = Pattern.compile("viewBox=\"0 0 (\\d+) (\\d+)\"");

  /** Pixels per module: a code on a screen. */
  private static final int SCALE = 6;

  @Test
  void aPageAddressWithATokenReadsBackAsItself() throws Exception {
    String link = "https://192.168.1.20:8443/#token=" + "k7Qx-9_aZ".repeat(5);

    String svg = QrCodeSvg.of(link);

    assertThat(svg).startsWith("<svg xmlns=\"http://www.w3.org/2000/svg\"");
    assertThat(QrCodes.read(painted(svg))).isEqualTo(link);
  }

  @Test
  void theCodeHasAQuietZoneOfFourModulesOnEverySide() {
    String svg = QrCodeSvg.of("https://bolo.local/");
    Matcher box = VIEW_BOX.matcher(svg);
    assertThat(box.find()).isTrue();
    int size = Integer.parseInt(box.group(1));
    Matcher square = SQUARE.matcher(svg);
    int min = Integer.MAX_VALUE;
    int max = 0;
    while (square.find()) {
      for (int axis = 1; axis <= 2; axis++) {
        int at = Integer.parseInt(square.group(axis));
        min = Math.min(min, at);
        max = Math.max(max, at);
      }
    }
    assertThat(min).isEqualTo(4);
    assertThat(max).isEqualTo(size - 5);
  }

  @Test
  void onlyAnAddressOfPrintableAsciiWithinTheBoundIsDrawn() {
    assertThat(QrCodeSvg.drawable("x".repeat(QrCodeSvg.MAX_TEXT_CHARS))).isTrue();
    assertThat(QrCodeSvg.drawable("x".repeat(QrCodeSvg.MAX_TEXT_CHARS + 1))).isFalse();
    assertThat(QrCodeSvg.drawable("")).isFalse();
    assertThat(QrCodeSvg.drawable("https://bolo.local/#token=caf\u00e9")).isFalse();
    assertThat(QrCodeSvg.drawable("line\nbreak")).isFalse();
    assertThatThrownBy(() -> QrCodeSvg.of("")).isInstanceOf(IllegalArgumentException.class);
  }

  /** The SVG's squares on a white ground, as a PNG. */
  private static byte[] painted(String svg) throws Exception {
    Matcher box = VIEW_BOX.matcher(svg);
    assertThat(box.find()).isTrue();
    int size = Integer.parseInt(box.group(1)) * SCALE;
    BufferedImage image = new BufferedImage(size, size, BufferedImage.TYPE_INT_RGB);
    var graphics = image.createGraphics();
    graphics.setColor(java.awt.Color.WHITE);
    graphics.fillRect(0, 0, size, size);
    graphics.setColor(java.awt.Color.BLACK);
    Matcher square = SQUARE.matcher(svg);
    while (square.find()) {
      graphics.fillRect(
          Integer.parseInt(square.group(1)) * SCALE,
          Integer.parseInt(square.group(2)) * SCALE,
          SCALE,
          SCALE);
    }
    graphics.dispose();
    ByteArrayOutputStream png = new ByteArrayOutputStream();
    ImageIO.write(image, "png", png);
    return png.toByteArray();
  }
}
