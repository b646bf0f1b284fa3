package dev.bolo.server.http;

import com.google.zxing.WriterException;
import com.google.zxing.qrcode.decoder.ErrorCorrectionLevel;
import com.google.zxing.qrcode.encoder.ByteMatrix;
import com.google.zxing.qrcode.encoder.Encoder;

/**
 * A text as a QR code in SVG, encoded by ZXing: dark squares on a light ground, error correction
 * level M (15 %: a screen photographed at an angle still reads), with the quiet zone of four
 * modules ISO/IEC 18004 asks for. The drawing is one path of unit squares, so the code scales to
 * any size crisply. Stateless.
 */
final class QrCodeSvg {

  /** Light modules around the code on every side. */
  private static final int QUIET_ZONE = 4;

  /**
   * The longest text drawn: a page address with a token is about a hundred characters, and a bound
   * keeps a request from asking for the largest code there is.
   */
  static final int MAX_TEXT_CHARS = 512;

  private QrCodeSvg() {}

  /**
   * Whether {@code text} can be drawn: printable ASCII (an address), 1 to {@link #MAX_TEXT_CHARS}
   * characters.
   */
  static boolean drawable(String text) {
    return !text.isEmpty()
        && text.length() <= MAX_TEXT_CHARS
        && text.chars().allMatch(c -> c >= 0x20 && c < 0x7f);
  }

  /**
   * {@code text} as an SVG document.
   *
   * @throws IllegalArgumentException when it is not {@link #drawable}
   */
  static String of(String text) {
    if (!drawable(text)) {
      throw new IllegalArgumentException(
          "a QR code here holds 1 to " + MAX_TEXT_CHARS + " printable ASCII characters");
    }
    ByteMatrix modules;
    try {
      // An address is ASCII: ZXing's default byte mode holds it as it is, with no ECI header.
      modules = Encoder.encode(text, ErrorCorrectionLevel.M).getMatrix();
    } catch (WriterException e) {
      throw new IllegalStateException("ZXing refused " + text.length() + " characters", e);
    }
    int count = modules.getWidth();
    int size = count + 2 * QUIET_ZONE;
    StringBuilder path = new StringBuilder();
    for (int row = 0; row < count; row++) {
      for (int col = 0; col < count; col++) {
        if (modules.get(col, row) == 1) {
          path.append('M')
              .append(col + QUIET_ZONE)
              .append(' ')
              .append(row + QUIET_ZONE)
              .append("h1v1h-1z");
        }
      }
    }
    return "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 "
        + size
        + " "
        + size
        + "\" shape-rendering=\"crispEdges\"><rect width=\""
        + size
        + "\" height=\""
        + size
        + "\" fill=\"#ffffff\"/><path d=\""
        + path
        + "\" fill=\"#000000\"/></svg>";
  }
}
