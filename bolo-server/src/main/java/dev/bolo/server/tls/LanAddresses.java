package dev.bolo.server.tls;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * This machine's addresses and name as a phone on the same network reaches them: the addresses of
 * its network interfaces that are up, and its host name. Read anew on every call (a laptop changes
 * networks). Stateless.
 */
public final class LanAddresses {

  /** Where Linux keeps the host name: reading it asks no DNS server, which may hang. */
  private static final Path KERNEL_HOST_NAME = Path.of("/proc/sys/kernel/hostname");

  /** A host name a certificate may carry: DNS labels of letters, digits and hyphens. */
  private static final Pattern HOST_NAME =
      Pattern.compile(
          "(?i)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*");

  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

  private LanAddresses() {}

  /**
   * The addresses of the interfaces that are up, loopback left out, in the order a person would try
   * them: private IPv4 first (a home or office LAN), then other IPv4, then IPv6. Link-local IPv6
   * addresses are left out: a URL needs their zone, which a phone does not share.
   */
  public static List<InetAddress> current() {
    List<InetAddress> found = new ArrayList<>();
    try {
      for (NetworkInterface face : NetworkInterface.networkInterfaces().toList()) {
        if (!face.isUp() || face.isLoopback()) {
          continue;
        }
        for (InetAddress address : face.inetAddresses().toList()) {
          InetAddress bare = withoutZone(address);
          if (!bare.isLoopbackAddress()
              && !bare.isLinkLocalAddress()
              && !bare.isAnyLocalAddress()
              && !found.contains(bare)) {
            found.add(bare);
          }
        }
      }
    } catch (SocketException e) {
      throw new UncheckedIOException("cannot list the network interfaces", e);
    }
    found.sort(Comparator.comparingInt(LanAddresses::rank));
    return List.copyOf(found);
  }

  /** This machine's host name, or null when it has none a certificate could carry. */
  public static @Nullable String hostName() {
    String name = null;
    try {
      if (Files.isReadable(KERNEL_HOST_NAME)) {
        name = Files.readString(KERNEL_HOST_NAME, StandardCharsets.US_ASCII).strip();
      }
    } catch (IOException e) {
      name = null;
    }
    if (name == null || name.isEmpty()) {
      name = System.getenv("HOSTNAME");
    }
    return name != null && isHostName(name) ? name.toLowerCase(Locale.ROOT) : null;
  }

  /** Whether {@code text} is a DNS name (not an address): labels of letters, digits, hyphens. */
  static boolean isHostName(String text) {
    return text.length() <= 253
        && HOST_NAME.matcher(text).matches()
        && !IPV4.matcher(text).matches();
  }

  /** {@code text} as an address when it is an IPv4 or IPv6 literal, else null; never asks DNS. */
  static @Nullable InetAddress literal(String text) {
    String bare =
        text.startsWith("[") && text.endsWith("]") ? text.substring(1, text.length() - 1) : text;
    if (!IPV4.matcher(bare).matches() && !bare.contains(":")) {
      return null;
    }
    try {
      // A literal is parsed, not looked up.
      return InetAddress.getByName(bare);
    } catch (UnknownHostException e) {
      return null;
    }
  }

  /** Whether a gateway listening on {@code host} listens on every address. */
  static boolean isWildcard(String host) {
    InetAddress address = literal(host);
    return host.isBlank() || (address != null && address.isAnyLocalAddress());
  }

  /** Whether {@code host} names this machine only: a phone cannot reach it. */
  static boolean isLoopback(String host) {
    InetAddress address = literal(host);
    return host.equalsIgnoreCase("localhost") || (address != null && address.isLoopbackAddress());
  }

  /** {@code address} as a URL's host: IPv6 in brackets, in RFC 5952's short form. */
  public static String urlHost(InetAddress address) {
    return address instanceof Inet6Address
        ? "[" + shortForm(address.getAddress()) + "]"
        : address.getHostAddress();
  }

  /**
   * An IPv6 address as RFC 5952 writes it (section 4): groups in lower-case hex without leading
   * zeros, the longest run of two or more zero groups (the first of equal runs) as {@code ::}. The
   * JDK writes every group ({@code fd00:0:0:0:0:0:0:2}), which is right but not what people type.
   */
  static String shortForm(byte[] sixteen) {
    int[] groups = new int[8];
    for (int i = 0; i < 8; i++) {
      groups[i] = ((sixteen[2 * i] & 0xff) << 8) | (sixteen[2 * i + 1] & 0xff);
    }
    int bestStart = -1;
    int bestLength = 1;
    for (int i = 0; i < 8; ) {
      int j = i;
      while (j < 8 && groups[j] == 0) {
        j++;
      }
      if (j - i > bestLength) {
        bestStart = i;
        bestLength = j - i;
      }
      i = j == i ? i + 1 : j;
    }
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        text.append("::");
        i += bestLength - 1;
        continue;
      }
      if (text.length() > 0 && text.charAt(text.length() - 1) != ':') {
        text.append(':');
      }
      text.append(Integer.toHexString(groups[i]));
    }
    return text.toString();
  }

  private static InetAddress withoutZone(InetAddress address) {
    if (address instanceof Inet6Address six && six.getScopeId() != 0) {
      try {
        return InetAddress.getByAddress(six.getAddress());
      } catch (UnknownHostException e) {
        throw new IllegalStateException("16 bytes are an IPv6 address", e);
      }
    }
    return address;
  }

  private static int rank(InetAddress address) {
    if (address instanceof Inet4Address) {
      return address.isSiteLocalAddress() ? 0 : 1;
    }
    return 2;
  }
}
