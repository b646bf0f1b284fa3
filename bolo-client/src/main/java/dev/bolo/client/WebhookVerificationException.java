package dev.bolo.client;

/**
 * A request that {@link Webhooks#verify} refused: not from the gateway, altered on the way, too old
 * or too new, or missing a header. Answer it with 400 and do not act on its body.
 */
public final class WebhookVerificationException extends Exception {

  private static final long serialVersionUID = 1L;

  public WebhookVerificationException(String message) {
    super(message);
  }
}
