package dev.bolo.server.webhook;

import java.util.List;

/**
 * A device's signing secrets ({@code whsec_…}): the current one first, then the one it replaced
 * while that is still within its 24 hours after a rotation. Thread safe.
 *
 * <p>The gateway's are the ledger's: {@code DurableLedger::webhookSecrets}, read from the database
 * for every event, so that a rotation by the CLI, the dashboard or another instance signs the next
 * one. A rotation within 24 hours of the last stops the oldest secret at once: at most two sign.
 */
@FunctionalInterface
public interface WebhookSecrets {

  /**
   * The secrets that sign an event for {@code device} now; empty when the device is gone (unknown
   * or revoked) or has no secret yet (enrolled before webhooks existed, until the operator runs
   * {@code bolo devices rotate-secret NAME}): such an event cannot be signed, so a job asking for a
   * webhook is best refused when it is made.
   *
   * @param device the device's name
   */
  List<String> signingSecrets(String device);
}
