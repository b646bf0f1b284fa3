package dev.bolo.server.testing;

import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.DeviceInfo;
import dev.bolo.server.ledger.DeviceUsage;
import dev.bolo.server.ledger.DurableLedger;
import dev.bolo.server.ledger.Enrollment;
import dev.bolo.server.ledger.Ledger;
import dev.bolo.server.ledger.LedgerConfig;
import dev.bolo.server.ledger.UsageQuery;
import java.nio.file.Path;

/**
 * A second ledger on a gateway's embedded database, opened the way {@code ./bolo devices} and
 * {@code ./bolo usage} open it: another connection pool on the same SQLite file. Thread safe.
 */
public final class LedgerProbe implements AutoCloseable {

  private final DurableLedger ledger;
  private final Runnable beforeUsage;

  private LedgerProbe(DurableLedger ledger, Runnable beforeUsage) {
    this.ledger = ledger;
    this.beforeUsage = beforeUsage;
  }

  /** Opens the embedded ledger under {@code dataDir}, of a gateway that is not running. */
  public static LedgerProbe open(Path dataDir) {
    return new LedgerProbe(
        Ledger.jdbc(LedgerConfig.embedded(dataDir), SystemTime.ofLedger()), () -> {});
  }

  /**
   * Opens the embedded ledger of a running gateway; usage and charges are read after the gateway
   * has written the rows of the requests it answered (it writes them in batches, after the answer).
   */
  public static LedgerProbe open(Path dataDir, Gateway running) {
    return new LedgerProbe(
        Ledger.jdbc(LedgerConfig.embedded(dataDir), SystemTime.ofLedger()),
        () -> running.app().flushLedgerWrites());
  }

  /** The ledger itself, for device administration. */
  public DurableLedger ledger() {
    return ledger;
  }

  /** Enrolls a device and returns its token. */
  public String add(String name) {
    return switch (ledger.add(new Device(name))) {
      case Enrollment.Enrolled enrolled -> enrolled.token();
      case Enrollment.NameTaken taken -> throw new AssertionError("name taken: " + taken.name());
    };
  }

  /**
   * The device as {@code ./bolo devices list} shows it, after the running gateway has written the
   * charges of devices without a quota (they ride with the usage rows, after the answer).
   */
  public DeviceInfo device(String name) {
    beforeUsage.run();
    return ledger.devices().stream()
        .filter(d -> d.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no device " + name + " in " + ledger.devices()));
  }

  /** Audio milliseconds charged to the device's quota. */
  public long chargedMillis(String name) {
    return device(name).chargedMillis();
  }

  /** The device's usage summary as {@code ./bolo usage} prints it; zeros when it has none. */
  public DeviceUsage usage(String name) {
    beforeUsage.run();
    return ledger.usage(new UsageQuery(name, null)).stream()
        .findFirst()
        .orElse(new DeviceUsage(name, 0, 0, 0, 0, 0, 0));
  }

  @Override
  public void close() {
    ledger.close();
  }
}
