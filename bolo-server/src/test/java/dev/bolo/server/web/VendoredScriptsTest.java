package dev.bolo.server.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.testing.NpmPackages;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The scripts the pages serve that come from elsewhere are the published packages' files, byte for
 * byte, at the versions {@code src/test/node/browser/package.json} pins: a copy changed by hand, or
 * a new version copied without changing the pin, fails here.
 */
class VendoredScriptsTest {

  private static final Path WEB =
      Path.of("src", "main", "resources", "dev", "bolo", "server", "web");

  @Test
  void theQrEncoderIsQrcodeGeneratorsOwnModuleUnchanged() throws Exception {
    String published = "node_modules/qrcode-generator/dist/qrcode.mjs";
    Path installed = NpmPackages.install("browser", published).resolve(published);

    assertThat(Files.readAllBytes(WEB.resolve("qrcode-generator.mjs")))
        .isEqualTo(Files.readAllBytes(installed));
    assertThat(Files.readString(WEB.resolve("qrcode-generator.mjs")))
        .contains("Licensed under the MIT license");
  }
}
