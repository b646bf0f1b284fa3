package dev.bolo.server.ledger;

import java.util.List;

/**
 * Managing devices: what {@code ./bolo devices} does. Changes take effect at once for every gateway
 * sharing the database. Thread safe.
 */
public interface DeviceAdmin {

  /** Creates a device with a new random token, which is returned here and never again. */
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
}
