package dev.bolo.server.testing;

import com.google.zxing.BinaryBitmap;
import com.google.zxing.ChecksumException;
import com.google.zxing.DecodeHintType;
import com.google.zxing.FormatException;
import com.google.zxing.NotFoundException;
import com.google.zxing.RGBLuminanceSource;
import com.google.zxing.common.HybridBinarizer;
import com.google.zxing.qrcode.QRCodeReader;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * Reads a QR code the way a phone's camera app does, with ZXing, from a picture of it (a screenshot
 * of the element that shows it). Stateless.
 */
public final class QrCodes {

  private QrCodes() {}

  /**
   * The text of the one QR code in {@code png}.
   *
   * @throws AssertionError when the picture holds no QR code that reads
   */
  public static String read(byte[] png) {
    BufferedImage image;
    try {
      image = ImageIO.read(new ByteArrayInputStream(png));
    } catch (IOException e) {
      throw new UncheckedIOException("not a picture", e);
    }
    if (image == null) {
      throw new AssertionError("not a PNG picture: " + png.length + " bytes");
    }
    int width = image.getWidth();
    int height = image.getHeight();
    int[] pixels = image.getRGB(0, 0, width, height, null, 0, width);
    BinaryBitmap bitmap =
        new BinaryBitmap(new HybridBinarizer(new RGBLuminanceSource(width, height, pixels)));
    try {
      return new QRCodeReader()
          .decode(bitmap, Map.of(DecodeHintType.TRY_HARDER, Boolean.TRUE))
          .getText();
    } catch (NotFoundException | ChecksumException | FormatException e) {
      throw new AssertionError(
          "no readable QR code in the " + width + "×" + height + " picture: " + e, e);
    }
  }
}
