package dev.bolo.server.tls;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.URI;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Where a phone opens the page, and the addresses as a person reads and types them. */
class PhoneAccessTest {

  @ParameterizedTest
  @CsvSource({
    "fd00:0:0:0:0:0:0:2, [fd00::2]",
    "0:0:0:0:0:0:0:1, [::1]",
    "2001:db8:0:0:1:0:0:1, [2001:db8::1:0:0:1]",
    "2001:db8:0:1:1:1:1:1, [2001:db8:0:1:1:1:1:1]",
    "fe80:0:0:0:a:b:c:d, [fe80::a:b:c:d]",
    "2001:db8:0:0:0:0:0:0, [2001:db8::]",
    "192.168.1.5, 192.168.1.5"
  })
  void addressesAreWrittenAsRfc5952SaysInAUrl(String literal, String host) {
    InetAddress address = Objects.requireNonNull(LanAddresses.literal(literal));

    assertThat(LanAddresses.urlHost(address)).isEqualTo(host);
    assertThat(URI.create("https://" + host + ":8443/").getHost()).isNotNull();
  }

  @Test
  void aGatewayOnLoopbackOffersPhonesNothingAndPlainHttpIsAdvisedAgainst() {
    PhoneAccess loopback = PhoneAccess.of("127.0.0.1", null);
    assertThat(loopback.isReachable()).isFalse();
    assertThat(loopback.pageUrls(8080)).isEmpty();
    assertThat(loopback.advice(8080)).isEmpty();

    PhoneAccess plain = PhoneAccess.of("192.168.1.5", null);
    assertThat(plain.isSecure()).isFalse();
    assertThat(plain.pageUrls(8080)).containsExactly(URI.create("http://192.168.1.5:8080/"));
    assertThat(plain.advice(8080)).singleElement().asString().contains("--tls");

    assertThat(PhoneAccess.of("bolo.home.arpa", null).pageUrls(80))
        .containsExactly(URI.create("http://bolo.home.arpa/"));
  }

  @Test
  void hostNamesAreTellableFromAddresses() {
    assertThat(LanAddresses.isHostName("studio")).isTrue();
    assertThat(LanAddresses.isHostName("bolo.home.arpa")).isTrue();
    assertThat(LanAddresses.isHostName("192.168.1.5")).isFalse();
    assertThat(LanAddresses.isHostName("not a name")).isFalse();
    assertThat(LanAddresses.isHostName("-dash.lan")).isFalse();
    assertThat(LanAddresses.literal("bolo.lan")).isNull();
    assertThat(LanAddresses.isWildcard("0.0.0.0")).isTrue();
    assertThat(LanAddresses.isWildcard("::")).isTrue();
    assertThat(LanAddresses.isLoopback("localhost")).isTrue();
    assertThat(LanAddresses.isLoopback("[::1]")).isTrue();
    assertThat(LanAddresses.isLoopback("192.168.1.5")).isFalse();
  }
}
