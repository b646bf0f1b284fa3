package dev.bolo.server.webhook;

import java.time.Duration;
import java.util.Collection;

/**
 * Makes the address policy and the sender for the gateway's composition root, on the same list of
 * the operator's receivers. Stateless.
 */
public final class WebhookCalls {

  /** How long one attempt may take, from the lookup to the receiver's answer (issue: 10 s). */
  public static final Duration TIMEOUT = Duration.ofSeconds(10);

  private WebhookCalls() {}

  /**
   * The policy a {@code webhook_url} must pass when a job is made.
   *
   * @param httpHosts {@code BOLO_WEBHOOK_HTTP_HOSTS}: {@code host:port} receivers that may be
   *     called over plain http and at any address
   * @throws IllegalArgumentException naming an entry that is not {@code host:port}
   */
  public static WebhookUrlPolicy policy(Collection<String> httpHosts, HostResolver resolver) {
    return new ResolvingUrlPolicy(httpHosts, resolver);
  }

  /**
   * The sender that posts each attempt, checking the URL again with the same policy and connecting
   * only to the addresses checked.
   *
   * @param timeout {@link #TIMEOUT} in the gateway
   */
  public static WebhookSender sender(
      Collection<String> httpHosts, HostResolver resolver, Duration timeout) {
    return new PinnedWebhookSender(new ResolvingUrlPolicy(httpHosts, resolver), timeout);
  }
}
