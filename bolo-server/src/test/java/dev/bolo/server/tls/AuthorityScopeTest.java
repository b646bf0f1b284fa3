package dev.bolo.server.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.ledger.PrivateFiles;
import dev.bolo.server.testing.LogCapture;
import dev.bolo.server.testing.TestCertificates;
import dev.bolo.testkit.MutableClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gateway's own authority may sign only for the gateway's names and the LAN ranges: its
 * certificate carries critical name constraints (as {@code openssl x509 -text} reads them), a
 * certificate for another name made with its own key is refused by a client that trusts it ({@code
 * openssl verify}; the JDK's PKIX refuses constraints in a trust anchor altogether, so it cannot be
 * the client here), and it lasts two years. An authority an older Bolo made without constraints is
 * kept, with a warning at every start.
 */
class AuthorityScopeTest {

  private static final List<String> NAMES = List.of("localhost", "studio", "studio.local");

  /** Loopback, a home LAN, a public IPv4 address and a global IPv6 one (documentation ranges). */
  private static final List<String> ADDRESSES =
      List.of("127.0.0.1", "::1", "192.168.1.5", "203.0.113.7", "2001:db8:5:6::7");

  @TempDir Path dir;

  @TempDir Path scratch;

  private final MutableClock clock = MutableClock.at(Instant.parse("2026-12-01T10:00:00Z"));

  @Test
  void theAuthorityCarriesCriticalNameConstraintsForTheGatewaysNamesAndTheLanRangesOnly() {
    issue(NAMES, ADDRESSES);

    TestCertificates.Run text =
        TestCertificates.run(
            dir, List.of("x509", "-in", LocalAuthority.CA_CERTIFICATE, "-noout", "-text"));

    assertThat(text.succeeded()).as(text.output()).isTrue();
    assertThat(text.output()).contains("X509v3 Name Constraints: critical");
    assertThat(permitted(text.output()))
        .containsExactly(
            "DNS:localhost",
            "DNS:studio",
            "DNS:studio.local",
            "IP:10.0.0.0/255.0.0.0",
            "IP:172.16.0.0/255.240.0.0",
            "IP:192.168.0.0/255.255.0.0",
            "IP:127.0.0.0/255.0.0.0",
            "IP:0:0:0:0:0:0:0:1/FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF",
            "IP:FC00:0:0:0:0:0:0:0/FE00:0:0:0:0:0:0:0",
            // Outside the LAN ranges, each address the gateway had: IPv4 alone, IPv6 with its /64.
            "IP:203.0.113.7/255.255.255.255",
            "IP:2001:DB8:5:6:0:0:0:0/FFFF:FFFF:FFFF:FFFF:0:0:0:0");
    assertThat(text.output()).doesNotContain("Excluded:");
  }

  @Test
  void aCertificateForAnotherNameMadeWithTheAuthoritysOwnKeyIsRefusedAndTheGatewaysIsAccepted()
      throws Exception {
    LocalAuthority.Issued issued = issue(NAMES, ADDRESSES);
    X509Certificate authority = issued.identity().chain().getLast();
    PrivateKey authorityKey = PemFiles.privateKey(dir.resolve(LocalAuthority.CA_KEY));
    // What a thief of the key would make: a bank's name, a public address, a name that only ends
    // like the gateway's, a name that only begins like it, and a gateway's name beside a bank's.
    List<List<String>> forgedNames =
        List.of(
            List.of("DNS:bank.example"),
            List.of("IP:8.8.8.8"),
            List.of("DNS:mystudio.local"),
            List.of("DNS:studio.local.bank.example"),
            List.of("DNS:studio.local", "DNS:bank.example"));

    assertThat(openSslVerifies(issued.identity().certificate())).isEqualTo("OK");
    // The same making, for a name of the gateway's: refused below for their names alone.
    assertThat(
            openSslVerifies(
                HandMadeCertificates.serverIdentity(
                        authority, authorityKey, clock.instant(), List.of("DNS:studio.local"))
                    .certificate()))
        .isEqualTo("OK");
    for (List<String> names : forgedNames) {
      X509Certificate forged =
          HandMadeCertificates.serverIdentity(authority, authorityKey, clock.instant(), names)
              .certificate();
      assertThat(openSslVerifies(forged))
          .as(names.toString())
          .contains("permitted subtree violation");
    }
  }

  @Test
  void aNameOrAddressTheAuthorityMayNotSignIsLeftOutOfTheServerCertificateWithAWarning() {
    LocalAuthority.Issued first = issue(List.of("localhost"), List.of("192.168.1.5"));

    LocalAuthority.Issued later;
    try (LogCapture log = LogCapture.start()) {
      // The computer moved to an office LAN, and the operator added a name and a public address.
      later = issue(List.of("localhost", "studio.example"), List.of("10.1.2.3", "203.0.113.9"));

      assertThat(log.text())
          .contains("WARN")
          .contains("leaves out studio.example, 203.0.113.9")
          .contains(PhoneAccess.GUIDE);
    }

    assertThat(later.authority().der()).isEqualTo(first.authority().der());
    assertThat(later.identity().dnsNames()).containsExactly("localhost");
    assertThat(later.identity().addresses()).containsExactly(address("10.1.2.3"));
    assertThat(openSslVerifies(later.identity().certificate())).isEqualTo("OK");
  }

  @Test
  void anAuthorityAnOlderBoloMadeWithoutConstraintsIsKeptAndEveryStartWarnsOfIt() throws Exception {
    KeyPair keys = Keys.newKeyPair();
    X509Certificate old = HandMadeCertificates.olderAuthority(keys, clock.instant());
    PrivateFiles.directory(dir);
    PrivateFiles.write(
        dir.resolve(LocalAuthority.CA_KEY),
        PemFiles.text(keys.getPrivate()).getBytes(StandardCharsets.US_ASCII));
    PrivateFiles.write(
        dir.resolve(LocalAuthority.CA_CERTIFICATE),
        PemFiles.text(old).getBytes(StandardCharsets.US_ASCII));

    for (int start = 0; start < 2; start++) {
      try (LogCapture log = LogCapture.start()) {
        LocalAuthority.Issued issued = issue(NAMES, ADDRESSES);

        // The phones that trust it keep working: same authority, every name covered.
        assertThat(issued.authority().der()).isEqualTo(old.getEncoded());
        assertThat(issued.identity().dnsNames()).containsExactlyElementsOf(NAMES);
        assertThat(log.text())
            .contains("WARN")
            .contains("made by an older Bolo and may sign any name")
            .contains("A new authority");
      }
      clock.advance(Duration.ofDays(1));
    }
  }

  @Test
  void theAuthorityLastsTwoYearsTheServerCertificateAtMost397DaysWithinItWithNoticeBeforeTheEnd() {
    LocalAuthority.Issued first = issue(NAMES, ADDRESSES);
    Instant authorityEnd = first.identity().chain().getLast().getNotAfter().toInstant();
    assertThat(authorityEnd).isEqualTo(clock.instant().plus(Duration.ofDays(730)));
    assertThat(first.identity().notAfter()).isEqualTo(clock.instant().plus(Duration.ofDays(397)));

    clock.advance(Duration.ofDays(680));
    LocalAuthority.Issued late;
    try (LogCapture log = LogCapture.start()) {
      late = issue(NAMES, ADDRESSES);

      assertThat(log.text())
          .contains("ends " + authorityEnd)
          .contains("a start after " + authorityEnd.minus(Duration.ofDays(30)) + " makes a new");
    }
    assertThat(late.authority().der()).isEqualTo(first.authority().der());
    assertThat(late.identity().notAfter()).isEqualTo(authorityEnd);
  }

  /** What {@code openssl verify} says of {@code server} with the authority as its only trust. */
  private String openSslVerifies(X509Certificate server) {
    Path file = scratch.resolve("server-" + server.getSerialNumber() + ".pem");
    try {
      Files.writeString(file, PemFiles.text(server));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
    TestCertificates.Run verify =
        TestCertificates.run(
            scratch,
            List.of(
                "verify",
                "-x509_strict",
                "-purpose",
                "sslserver",
                "-CAfile",
                dir.resolve(LocalAuthority.CA_CERTIFICATE).toString(),
                file.toString()));
    String said = verify.output().strip();
    return verify.succeeded() && said.endsWith(": OK") ? "OK" : said;
  }

  /** The permitted subtrees {@code openssl x509 -text} lists, one per line, in their order. */
  private static List<String> permitted(String text) {
    String after = text.substring(text.indexOf("Permitted:") + "Permitted:".length());
    return after
        .lines()
        .skip(1)
        .map(String::strip)
        .takeWhile(line -> line.startsWith("DNS:") || line.startsWith("IP:"))
        .toList();
  }

  private LocalAuthority.Issued issue(List<String> names, List<String> addresses) {
    return LocalAuthority.serverIdentity(
        dir, clock, names, addresses.stream().map(AuthorityScopeTest::address).toList());
  }

  private static InetAddress address(String literal) {
    return Objects.requireNonNull(LanAddresses.literal(literal), literal);
  }
}
