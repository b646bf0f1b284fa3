package dev.bolo.server.webhook;

/**
 * Decides whether a {@code webhook_url} may be called: {@code https} only, never an address in the
 * loopback, private, link-local or metadata ranges, except the hosts the operator lists in {@code
 * BOLO_WEBHOOK_HTTP_HOSTS}. Checked when a job is created, so that a refusal is the client's 400
 * and not a delivery that fails a day later. Thread safe.
 *
 * <p>The gateway's is {@link WebhookCalls#policy}: each address the host resolves to is judged by
 * {@code AddressRange} (OWASP's SSRF prevention advice: check the resolved address, not the name).
 */
@FunctionalInterface
public interface WebhookUrlPolicy {

  /**
   * Returns quietly when {@code url} may be called now.
   *
   * @throws RefusedWebhookUrl with the gateway's own sentence naming the reason
   */
  void check(String url) throws RefusedWebhookUrl;

  /** A {@code webhook_url} the gateway will not call; the message is the client's to read. */
  final class RefusedWebhookUrl extends Exception {
    private static final long serialVersionUID = 1L;

    public RefusedWebhookUrl(String message) {
      super(message, null, false, false);
    }
  }
}
