package dev.bolo.server.ledger;

/** The answer to {@link DeviceAdmin#add}. */
public sealed interface Enrollment {

  /**
   * The device exists now; {@code token} is its only copy in clear.
   *
   * @param device the new device
   * @param token show it to the operator once; the ledger keeps only its hash
   * @param webhookSecret the {@code whsec_…} secret its webhooks are signed with; show it to the
   *     operator, who gives it to the device's receivers
   */
  record Enrolled(Device device, String token, String webhookSecret) implements Enrollment {

    /** Leaves the token and the secret out, so logging an enrollment cannot leak them. */
    @Override
    public String toString() {
      return "Enrolled[device=" + device.name() + "]";
    }
  }

  /** A device of that name exists already (perhaps revoked); names are never reused. */
  record NameTaken(String name) implements Enrollment {}
}
