package dev.bolo.server.webhook;

import java.util.List;

/**
 * A device's signing secrets ({@code whsec_…}): the current one first, then the one it replaced
 * while that is still within its 24 hours after a rotation. Thread safe.
 */
@FunctionalInterface
public interface WebhookSecrets {

  /**
   * The secrets that sign an event for {@code device} now; empty when the device is gone.
   *
   * @param device the device's name
   */
  List<String> signingSecrets(String device);
}
