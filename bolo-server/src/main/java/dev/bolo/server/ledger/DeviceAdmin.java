package dev.bolo.server.ledger;

import java.util.List;
import java.util.Optional;

/**
 * Managing devices: what {@code ./bolo devices} does. Changes take effect at once for every gateway
 * sharing the database. Thread safe.
 */
public interface DeviceAdmin {

  /**
   * Creates a device with a new random token and webhook signing secret, which are returned here;
   * the token never again.
   */
  Enrollment add(Device device);

  /** Every device, revoked ones included, by name. */
  List<DeviceInfo> devices();

  /**
   * Stops the device's tokens from authenticating, from the next request on. Revoking a revoked
   * device changes nothing.
   *
   * @return false when there is no such device
   */
  boolean revoke(String name);

  /**
   * Sets how many seconds of audio the device may have transcribed in all (already charged seconds
   * count against it), replacing the default trial quota for this device; 0 = unlimited.
   *
   * @return false when there is no such device
   */
  boolean setQuota(String name, long seconds);

  /**
   * Makes a new webhook signing secret for the device, which signs its events from now on; the one
   * it replaces signs beside it for 24 hours, so that receivers can change over without a failed
   * event. A device enrolled before webhooks existed gets its first secret so.
   *
   * @return the new secret, shown to the operator; empty when there is no such device
   */
  Optional<String> rotateWebhookSecret(String name);
}
