package dev.bolo.server.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bolo.testkit.MutableClock;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.CertPathValidator;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gateway's own certificate authority: made once and kept, private keys readable by the
 * gateway's user only, and a server certificate that meets what phones require of one, issued anew
 * only when the one kept no longer does.
 */
class LocalAuthorityTest {

  private static final String EXTENDED_KEY_USAGE_SERVER_AUTH = "1.3.6.1.5.5.7.3.1";

  @TempDir Path dir;

  @TempDir Path elsewhere;

  private final MutableClock clock = MutableClock.at(Instant.parse("2026-12-01T10:00:00Z"));

  @Test
  void theAuthorityIsMadeOnceAndItsServerCertificateKeptWhileItCoversTheNames() throws Exception {
    LocalAuthority.Issued first = issue(List.of("localhost"), List.of("127.0.0.1", "192.168.1.5"));
    clock.advance(Duration.ofDays(1));
    LocalAuthority.Issued second = issue(List.of("localhost"), List.of("192.168.1.5", "127.0.0.1"));

    assertThat(second.authority().der()).isEqualTo(first.authority().der());
    assertThat(second.identity().certificate()).isEqualTo(first.identity().certificate());
  }

  @Test
  void aNewAddressOrAMonthLeftGetsANewServerCertificateFromTheSameAuthority() throws Exception {
    LocalAuthority.Issued first = issue(List.of("localhost"), List.of("192.168.1.5"));

    LocalAuthority.Issued moved = issue(List.of("localhost"), List.of("192.168.1.9"));
    assertThat(moved.identity().certificate()).isNotEqualTo(first.identity().certificate());
    assertThat(moved.identity().addresses()).containsExactly(address("192.168.1.9"));
    assertThat(moved.authority().der()).isEqualTo(first.authority().der());

    clock.advance(LocalAuthority.SERVER_LIFETIME.minus(LocalAuthority.RENEW_BEFORE).plusHours(2));
    LocalAuthority.Issued renewed = issue(List.of("localhost"), List.of("192.168.1.9"));
    assertThat(renewed.identity().certificate()).isNotEqualTo(moved.identity().certificate());
    assertThat(renewed.identity().notAfter()).isAfter(moved.identity().notAfter());
    assertThat(renewed.authority().der()).isEqualTo(first.authority().der());
  }

  @Test
  void theServerCertificateIsWhatPhonesRequireAndChainsToTheAuthority() throws Exception {
    LocalAuthority.Issued issued =
        issue(List.of("localhost", "studio.local"), List.of("127.0.0.1", "::1", "192.168.1.5"));
    X509Certificate server = issued.identity().certificate();
    X509Certificate authority = authorityOf(issued);

    // iOS 13 and later: serverAuth purpose, at most 825 days, names in the alternative names.
    assertThat(server.getExtendedKeyUsage()).containsExactly(EXTENDED_KEY_USAGE_SERVER_AUTH);
    assertThat(
            Duration.between(server.getNotBefore().toInstant(), server.getNotAfter().toInstant()))
        .isLessThanOrEqualTo(Duration.ofDays(825));
    assertThat(issued.identity().dnsNames()).containsExactly("localhost", "studio.local");
    assertThat(issued.identity().addresses())
        .containsExactly(address("127.0.0.1"), address("::1"), address("192.168.1.5"));
    assertThat(server.getBasicConstraints()).isEqualTo(-1);
    assertThat(server.getKeyUsage()[0]).as("digitalSignature").isTrue();
    // Android installs only a certificate that says it is an authority.
    assertThat(authority.getBasicConstraints()).isZero();
    assertThat(authority.getKeyUsage()[5]).as("keyCertSign").isTrue();
    assertThat(authority.getSubjectX500Principal().getName()).contains("Bolo local CA");

    // The JDK's own PKIX validation, the authority as the only trust anchor.
    PKIXParameters parameters = new PKIXParameters(Set.of(new TrustAnchor(authority, null)));
    parameters.setRevocationEnabled(false);
    parameters.setDate(Date.from(clock.instant()));
    CertPathValidator.getInstance("PKIX")
        .validate(
            CertificateFactory.getInstance("X.509").generateCertPath(List.of(server)), parameters);
  }

  @Test
  void theKeysAreReadableByTheGatewaysUserOnlyAndOnlyTheCertificatesAreServed() throws Exception {
    LocalAuthority.Issued issued = issue(List.of("localhost"), List.of("127.0.0.1"));

    for (String key : List.of(LocalAuthority.CA_KEY, LocalAuthority.SERVER_KEY)) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve(key))))
          .as(key)
          .isEqualTo("rw-------");
      assertThat(Files.readString(dir.resolve(key))).contains("PRIVATE KEY");
    }
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)))
        .isEqualTo("rwx------");
    assertThat(issued.authority().pem())
        .startsWith("-----BEGIN CERTIFICATE-----")
        .doesNotContain("PRIVATE");
    assertThat(issued.authority().pem()).isEqualTo(Files.readString(dir.resolve("ca.crt")));
    assertThat(issued.authority().sha256Fingerprint()).matches("([0-9A-F]{2}:){31}[0-9A-F]{2}");
  }

  @Test
  void aServerCertificateOfAnotherAuthorityIsReplacedAndAKeyOfAnotherAuthorityStopsTheStart()
      throws Exception {
    issue(List.of("localhost"), List.of("127.0.0.1"));
    Path other = elsewhere.resolve("tls");
    LocalAuthority.serverIdentity(other, clock, List.of("localhost"), List.of());
    Files.copy(
        other.resolve("server.crt"),
        dir.resolve("server.crt"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    Files.copy(
        other.resolve("server.key"),
        dir.resolve("server.key"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);

    LocalAuthority.Issued again = issue(List.of("localhost"), List.of("127.0.0.1"));
    again.identity().certificate().verify(authorityOf(again).getPublicKey());

    Files.copy(
        other.resolve("ca.key"),
        dir.resolve("ca.key"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    assertThatThrownBy(() -> issue(List.of("localhost"), List.of()))
        .hasMessageContaining("is not the key of");
  }

  @Test
  void aServerPairLeftHalfWrittenIsIssuedAgainAndLoosenedKeyModesAreFixed() throws Exception {
    LocalAuthority.Issued first = issue(List.of("localhost"), List.of("192.168.1.5"));
    // The machine stopped between the two files: an empty server key; and an operator's chmod.
    java.nio.file.Files.write(dir.resolve(LocalAuthority.SERVER_KEY), new byte[0]);
    java.nio.file.Files.setPosixFilePermissions(
        dir.resolve(LocalAuthority.CA_KEY),
        java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));

    LocalAuthority.Issued again = issue(List.of("localhost"), List.of("192.168.1.5"));

    assertThat(again.identity().certificate()).isNotEqualTo(first.identity().certificate());
    assertThat(again.authority().der()).isEqualTo(first.authority().der());
    for (String key : List.of(LocalAuthority.CA_KEY, LocalAuthority.SERVER_KEY)) {
      assertThat(
              java.nio.file.attribute.PosixFilePermissions.toString(
                  java.nio.file.Files.getPosixFilePermissions(dir.resolve(key))))
          .as(key)
          .isEqualTo("rw-------");
    }
  }

  private LocalAuthority.Issued issue(List<String> names, List<String> addresses) {
    return LocalAuthority.serverIdentity(
        dir, clock, names, addresses.stream().map(LocalAuthorityTest::address).toList());
  }

  private static X509Certificate authorityOf(LocalAuthority.Issued issued) {
    return issued.identity().chain().getLast();
  }

  private static InetAddress address(String literal) {
    return Objects.requireNonNull(LanAddresses.literal(literal), literal);
  }
}
