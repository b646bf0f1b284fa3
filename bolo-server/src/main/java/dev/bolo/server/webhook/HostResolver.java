package dev.bolo.server.webhook;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Turns a host name into addresses: the system's resolver in the gateway, a table in tests (which
 * thereby never look a name up, nor connect beyond loopback). Thread safe.
 */
@FunctionalInterface
public interface HostResolver {

  /**
   * Every address {@code host} resolves to now.
   *
   * @throws UnknownHostException when it resolves to none
   */
  List<InetAddress> resolve(String host) throws UnknownHostException;

  /** The system's resolver, as every other outbound call of the gateway uses it. */
  static HostResolver system() {
    return host -> List.of(InetAddress.getAllByName(host));
  }
}
