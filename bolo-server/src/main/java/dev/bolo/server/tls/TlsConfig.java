package dev.bolo.server.tls;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Whether and how the gateway's port speaks TLS: {@code BOLO_TLS}, {@code BOLO_TLS_CERT} and {@code
 * BOLO_TLS_KEY}, {@code BOLO_TLS_NAMES}. Immutable.
 *
 * @param mode off, or on
 * @param certificate a PEM file of the server's certificate and its chain; null for a certificate
 *     of the gateway's own authority
 * @param key the PEM file of that certificate's private key; null exactly when {@code certificate}
 *     is
 * @param names host names and addresses the gateway's own certificate covers besides localhost and
 *     this machine's name and LAN addresses (a name the LAN's DNS gives it, the address a container
 *     is reached at)
 */
public record TlsConfig(
    Mode mode, @Nullable Path certificate, @Nullable Path key, List<String> names) {

  /** {@code BOLO_TLS}. */
  public enum Mode {
    /** Plain HTTP, as before. */
    OFF,
    /** HTTPS on the gateway's port; plain HTTP there only from this machine (loopback). */
    ON
  }

  public TlsConfig {
    Objects.requireNonNull(mode, "mode");
    names = List.copyOf(names);
    if ((certificate == null) != (key == null)) {
      throw new IllegalArgumentException(
          "a certificate file needs its key file and the other way round: "
              + certificate
              + ", "
              + key);
    }
    if (mode == Mode.OFF && certificate != null) {
      throw new IllegalArgumentException("certificate files are given but TLS is off");
    }
    for (String name : names) {
      if (LanAddresses.literal(name) == null && !LanAddresses.isHostName(name)) {
        throw new IllegalArgumentException("not a host name or an address: " + name);
      }
    }
    if (!names.isEmpty() && (mode == Mode.OFF || certificate != null)) {
      throw new IllegalArgumentException(
          "names are for the gateway's own certificate, which is not in use");
    }
  }

  /** Plain HTTP. */
  public static TlsConfig off() {
    return new TlsConfig(Mode.OFF, null, null, List.of());
  }

  /** HTTPS with the operator's certificate and key (PEM files). */
  public static TlsConfig files(Path certificate, Path key) {
    return new TlsConfig(Mode.ON, certificate, key, List.of());
  }

  public boolean isOn() {
    return mode == Mode.ON;
  }

  /** Whether the gateway makes and keeps its own certificate authority. */
  public boolean usesLocalAuthority() {
    return mode == Mode.ON && certificate == null;
  }
}
