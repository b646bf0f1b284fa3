package dev.bolo.server.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The classifier on literal addresses of every range. Parsing a literal never looks anything up and
 * nothing here connects anywhere.
 */
class AddressRangeTest {

  @ParameterizedTest(name = "{0} is {1}")
  @CsvSource({
    "0.0.0.0, UNSPECIFIED",
    "::, UNSPECIFIED",
    "0.1.2.3, THIS_NETWORK",
    "127.0.0.1, LOOPBACK",
    "127.0.0.2, LOOPBACK",
    "127.255.255.254, LOOPBACK",
    "::1, LOOPBACK",
    "10.0.0.1, PRIVATE",
    "10.255.255.255, PRIVATE",
    "172.16.0.1, PRIVATE",
    "172.31.255.255, PRIVATE",
    "192.168.1.1, PRIVATE",
    "100.64.0.1, SHARED",
    "100.127.255.255, SHARED",
    "169.254.169.254, METADATA",
    "169.254.0.1, LINK_LOCAL",
    "169.254.255.255, LINK_LOCAL",
    "fe80::1, LINK_LOCAL",
    "febf:ffff::1, LINK_LOCAL",
    "fec0::1, SITE_LOCAL",
    "fc00::1, UNIQUE_LOCAL",
    "fd00:ec2::254, UNIQUE_LOCAL",
    "fdff:ffff::1, UNIQUE_LOCAL",
    "192.0.0.8, PROTOCOL",
    "192.0.2.1, DOCUMENTATION",
    "198.51.100.7, DOCUMENTATION",
    "203.0.113.9, DOCUMENTATION",
    "2001:db8::1, DOCUMENTATION",
    "198.18.0.1, BENCHMARK",
    "198.19.255.255, BENCHMARK",
    "2001:2::1, BENCHMARK",
    "224.0.0.1, MULTICAST",
    "239.255.255.250, MULTICAST",
    "ff02::1, MULTICAST",
    "240.0.0.1, RESERVED",
    "255.255.255.255, RESERVED",
    "100::1, RESERVED",
    "2001:0:4136:e378:8000:63bf:3fff:fdd2, RESERVED",
    "4000::1, RESERVED",
    // IPv6 forms that carry an IPv4 address are judged by it.
    "::127.0.0.1, LOOPBACK",
    "::10.1.2.3, PRIVATE",
    "64:ff9b::7f00:1, LOOPBACK",
    "64:ff9b::a9fe:a9fe, METADATA",
    "2002:7f00:1::, LOOPBACK",
    "2002:c0a8:101::1, PRIVATE",
  })
  void anAddressInARefusedRangeIsNamedByItsRange(String literal, AddressRange range)
      throws UnknownHostException {
    assertThat(AddressRange.of(InetAddress.getByName(literal))).contains(range);
  }

  @ParameterizedTest
  @CsvSource({
    "::ffff:127.0.0.1, LOOPBACK",
    "::ffff:169.254.169.254, METADATA",
    "::ffff:10.0.0.1, PRIVATE",
    "::ffff:0.0.0.0, UNSPECIFIED",
  })
  void anIpv4MappedAddressKeptInItsIpv6FormIsJudgedByTheIpv4AddressInside(
      String literal, AddressRange range) throws UnknownHostException {
    // The JDK's parser turns a mapped literal into its IPv4 address; built from bytes, it stays
    // an IPv6 address, as a resolver may hand it over.
    byte[] bytes = new byte[16];
    bytes[10] = (byte) 0xff;
    bytes[11] = (byte) 0xff;
    System.arraycopy(InetAddress.getByName(literal).getAddress(), 0, bytes, 12, 4);
    Inet6Address mapped = Inet6Address.getByAddress(null, bytes, -1);

    assertThat(AddressRange.of(mapped)).contains(range);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "1.1.1.1",
        "8.8.8.8",
        "93.184.215.14",
        "172.15.255.255",
        "172.32.0.1",
        "100.63.255.255",
        "100.128.0.1",
        "169.253.255.255",
        "192.0.1.1",
        "192.169.0.1",
        "198.17.255.255",
        "198.20.0.1",
        "223.255.255.255",
        "2606:4700:4700::1111",
        "2a00:1450:4001:82a::200e",
        "::ffff:8.8.8.8",
        "64:ff9b::808:808",
        "2002:808:808::1",
        "2001:db9::1",
      })
  void aPublicAddressIsInNoRefusedRange(String literal) throws UnknownHostException {
    assertThat(AddressRange.of(InetAddress.getByName(literal))).isEmpty();
  }
}
