package dev.bolo.server.webhook;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import okhttp3.HttpUrl;
import org.jspecify.annotations.Nullable;

/**
 * {@link WebhookUrlPolicy} that resolves the URL's host once and checks every address it resolves
 * to against {@link AddressRange}; {@link #target} hands the checked addresses on, so that the
 * sender connects to exactly them (no second lookup, no DNS rebinding). A host of {@code
 * BOLO_WEBHOOK_HTTP_HOSTS} (host and port) may be called over plain {@code http} and at any
 * address. Immutable and thread safe.
 */
final class ResolvingUrlPolicy implements WebhookUrlPolicy {

  /** Longer than any receiver's path needs, and far shorter than a job row should hold. */
  static final int MAX_URL_LENGTH = 2048;

  /**
   * A host of digits and dots only is taken by the HTTP client as an IPv4 literal and parsed by the
   * JDK, which reads forms such as {@code 127.1} too; the policy takes only the plain dotted quad,
   * so that both read the same address.
   */
  private static final Pattern NUMERIC_HOST = Pattern.compile("[0-9.]+");

  private static final Pattern DOTTED_QUAD =
      Pattern.compile(
          "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}");

  private static final String ALLOWING =
      " (an operator may allow a receiver with BOLO_WEBHOOK_HTTP_HOSTS)";

  /** {@code host:port} as {@link HttpUrl} writes them. */
  private final Set<String> httpHosts;

  private final HostResolver resolver;

  /**
   * @param httpHosts {@code host:port} entries of {@code BOLO_WEBHOOK_HTTP_HOSTS}
   * @throws IllegalArgumentException naming an entry that is not {@code host:port}
   */
  ResolvingUrlPolicy(Collection<String> httpHosts, HostResolver resolver) {
    Set<String> normalised = new HashSet<>();
    for (String entry : httpHosts) {
      normalised.add(normalisedHostAndPort(entry));
    }
    this.httpHosts = Set.copyOf(normalised);
    this.resolver = resolver;
  }

  /** {@code entry} ({@code host:port}, an IPv6 host in brackets) as URLs' hosts are compared. */
  static String normalisedHostAndPort(String entry) {
    HttpUrl url = HttpUrl.parse("http://" + entry.trim() + "/");
    if (url == null || !entry.trim().matches(".+:[0-9]{1,5}") || !url.encodedPath().equals("/")) {
      throw new IllegalArgumentException(
          "a webhook receiver the operator allows is host:port, e.g. hooks.internal:8080: "
              + entry);
    }
    return key(url);
  }

  @Override
  public void check(String url) throws RefusedWebhookUrl {
    try {
      target(url);
    } catch (UnknownHostException e) {
      throw new RefusedWebhookUrl(
          "webhook_url's host " + hostOf(url) + " does not resolve to any address");
    }
  }

  /**
   * The URL and the addresses the sender may connect to: every one that {@code url}'s host resolves
   * to now, each checked.
   *
   * @throws RefusedWebhookUrl when the URL or any of its addresses may not be called
   * @throws UnknownHostException when the host resolves to nothing now
   */
  Target target(String url) throws RefusedWebhookUrl, UnknownHostException {
    // Guard clauses, from the URL's form to its addresses.
    if (url.length() > MAX_URL_LENGTH) {
      throw new RefusedWebhookUrl(
          "webhook_url is longer than " + MAX_URL_LENGTH + " characters: " + url.length());
    }
    HttpUrl parsed = HttpUrl.parse(url);
    if (parsed == null) {
      throw new RefusedWebhookUrl("webhook_url is not an absolute https URL");
    }
    // Credentials in a URL are not sent by the client, and would sit in the job's row in clear.
    if (!parsed.username().isEmpty() || !parsed.password().isEmpty()) {
      throw new RefusedWebhookUrl("webhook_url must not carry a user name or password");
    }
    boolean allowed = httpHosts.contains(key(parsed));
    if (!parsed.isHttps() && !allowed) {
      throw new RefusedWebhookUrl(
          "webhook_url must use https; plain http is only for the receivers the operator lists in"
              + " BOLO_WEBHOOK_HTTP_HOSTS");
    }
    String host = parsed.host();
    if (NUMERIC_HOST.matcher(host).matches() && !DOTTED_QUAD.matcher(host).matches()) {
      throw new RefusedWebhookUrl(
          "webhook_url's host " + host + " is not an IPv4 address written as four numbers");
    }
    List<InetAddress> addresses = addressesOf(host);
    // The operator's own receivers may be anywhere: on this machine or its network.
    if (allowed) {
      return new Target(parsed, addresses);
    }
    for (InetAddress address : addresses) {
      Optional<AddressRange> refused = AddressRange.of(address);
      if (refused.isPresent()) {
        throw new RefusedWebhookUrl(
            "webhook_url's host "
                + host
                + " resolves to "
                + address.getHostAddress()
                + ", "
                + refused.get().description
                + ": only public addresses are called"
                + ALLOWING);
      }
    }
    return new Target(parsed, addresses);
  }

  private List<InetAddress> addressesOf(String host) throws UnknownHostException {
    // A literal is its own address: nothing is looked up, as the HTTP client does not either.
    if (DOTTED_QUAD.matcher(host).matches() || host.contains(":")) {
      return List.of(InetAddress.getByName(host));
    }
    List<InetAddress> addresses = resolver.resolve(host);
    if (addresses.isEmpty()) {
      throw new UnknownHostException(host);
    }
    return List.copyOf(addresses);
  }

  private static String key(HttpUrl url) {
    return url.host().toLowerCase(Locale.ROOT) + ":" + url.port();
  }

  private static String hostOf(String url) {
    @Nullable HttpUrl parsed = HttpUrl.parse(url);
    return parsed == null ? "?" : parsed.host();
  }

  /**
   * Where one delivery goes.
   *
   * @param url the parsed {@code webhook_url}
   * @param addresses what its host resolved to, checked: the only addresses connected to
   */
  record Target(HttpUrl url, List<InetAddress> addresses) {
    Target {
      addresses = List.copyOf(addresses);
    }
  }
}
