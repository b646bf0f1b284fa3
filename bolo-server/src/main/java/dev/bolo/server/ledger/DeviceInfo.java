package dev.bolo.server.ledger;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A device as {@code ./bolo devices list} shows it.
 *
 * @param name the device's name
 * @param created when it was added (or first configured)
 * @param revoked when it was revoked; null while active
 * @param quotaOverrideMillis its own allowance (0 = unlimited); null when the default trial applies
 * @param quotaMillis the allowance that applies, 0 = unlimited
 * @param chargedMillis audio charged so far
 * @param configuredOnly true when it has no ledger token and authenticates only through {@code
 *     BOLO_DEVICE_TOKENS}
 */
public record DeviceInfo(
    String name,
    Instant created,
    @Nullable Instant revoked,
    @Nullable Long quotaOverrideMillis,
    long quotaMillis,
    long chargedMillis,
    boolean configuredOnly) {

  public DeviceInfo {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(created, "created");
  }

  public boolean isRevoked() {
    return revoked != null;
  }

  public boolean isUnlimited() {
    return quotaMillis == 0;
  }

  /** What is left to charge; {@link Long#MAX_VALUE} when unlimited. */
  public long remainingMillis() {
    return isUnlimited() ? Long.MAX_VALUE : Math.max(0, quotaMillis - chargedMillis);
  }
}
