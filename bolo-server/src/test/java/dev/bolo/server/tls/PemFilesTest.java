package dev.bolo.server.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bolo.server.testing.TestCertificates;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An operator's certificate and key as the usual tools write them ({@code openssl}, certbot,
 * Caddy): every unencrypted key form is read, an encrypted key or a key of another certificate is
 * refused with the file's name.
 */
class PemFilesTest {

  @TempDir Path dir;

  @Test
  void aKeyInPkcs8Sec1OrPkcs1IsReadAndMatchedWithItsCertificate() throws Exception {
    TestCertificates.Issued ec =
        TestCertificates.issue(dir.resolve("ec"), List.of("bolo.lan"), List.of("192.168.1.5"));
    Path sec1 = dir.resolve("sec1.key");
    openssl("ec", "-in", ec.key().toString(), "-out", sec1.toString());
    assertThat(Files.readString(ec.key())).contains("BEGIN PRIVATE KEY");
    assertThat(Files.readString(sec1)).contains("BEGIN EC PRIVATE KEY");

    for (Path key : List.of(ec.key(), sec1)) {
      ServerIdentity identity =
          new ServerIdentity(PemFiles.privateKey(key), PemFiles.certificates(ec.certificate()));
      assertThat(identity.dnsNames()).containsExactly("bolo.lan");
      assertThat(identity.addresses()).extracting(a -> a.getHostAddress()).contains("192.168.1.5");
    }

    Path rsa = dir.resolve("rsa.key");
    Path pkcs1 = dir.resolve("rsa-pkcs1.key");
    Path certificate = dir.resolve("rsa.crt");
    openssl(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        rsa.toString(),
        "-out",
        certificate.toString(),
        "-subj",
        "/CN=bolo.lan",
        "-days",
        "2",
        "-addext",
        "subjectAltName=DNS:bolo.lan");
    openssl("rsa", "-in", rsa.toString(), "-traditional", "-out", pkcs1.toString());
    assertThat(Files.readString(pkcs1)).contains("BEGIN RSA PRIVATE KEY");
    ServerIdentity identity =
        new ServerIdentity(PemFiles.privateKey(pkcs1), PemFiles.certificates(certificate));
    assertThat(identity.keyStore("x".toCharArray()).size()).isEqualTo(1);

    assertThatThrownBy(
            () -> new ServerIdentity(PemFiles.privateKey(sec1), PemFiles.certificates(certificate)))
        .hasMessageContaining("is not the key of the certificate");
  }

  @Test
  void anEncryptedKeyOrAFileWithoutWhatItShouldHoldIsRefusedNamingTheFile() throws Exception {
    TestCertificates.Issued ec =
        TestCertificates.issue(dir.resolve("ec"), List.of("bolo.lan"), List.of());
    Path encrypted = dir.resolve("encrypted.key");
    openssl(
        "pkey",
        "-in",
        ec.key().toString(),
        "-aes256",
        "-passout",
        "pass:secret",
        "-out",
        encrypted.toString());

    assertThatThrownBy(() -> PemFiles.privateKey(encrypted))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(encrypted.toString())
        .hasMessageContaining("encrypted");
    assertThatThrownBy(() -> PemFiles.privateKey(ec.certificate()))
        .hasMessageContaining("holds no PEM private key");
    assertThatThrownBy(() -> PemFiles.certificates(ec.key()))
        .hasMessageContaining("holds no PEM certificate");
  }

  private void openssl(String... arguments) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("openssl"));
    command.addAll(List.of(arguments));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(String.join(" ", command) + ": " + output).isZero();
  }
}
