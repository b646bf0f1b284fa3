package dev.bolo.server.ledger;

/** The answer to {@link DeviceAdmin#add}. */
public sealed interface Enrollment {

  /**
   * The device exists now; {@code token} is its only copy in clear.
   *
   * @param device the new device
   * @param token show it to the operator once; the ledger keeps only its hash
   */
  record Enrolled(Device device, String token) implements Enrollment {

    /** Leaves the token out, so logging an enrollment cannot leak it. */
    @Override
    public String toString() {
      return "Enrolled[device=" + device.name() + "]";
    }
  }

  /** A device of that name exists already (perhaps revoked); names are never reused. */
  record NameTaken(String name) implements Enrollment {}
}
