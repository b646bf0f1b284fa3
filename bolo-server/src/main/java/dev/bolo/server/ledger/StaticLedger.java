package dev.bolo.server.ledger;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

/** {@link Ledger} of devices fixed at start, unlimited quota, usage kept in memory. */
final class StaticLedger implements Ledger {

  private final Map<String, Device> devicesByTokenHash = new HashMap<>();
  private final List<UsageRecord> usage = new CopyOnWriteArrayList<>();

  StaticLedger(Map<String, String> tokensByDevice) {
    tokensByDevice.forEach(
        (name, token) -> devicesByTokenHash.put(Tokens.hash(token), new Device(name)));
  }

  @Override
  public Optional<Device> authenticate(String token) {
    return Optional.ofNullable(devicesByTokenHash.get(Tokens.hash(token)));
  }

  @Override
  public Reservation reserve(Device device, long audioMillis) {
    return new Reservation.Granted(UUID.randomUUID().toString(), device.name(), audioMillis);
  }

  @Override
  public void commit(Reservation.Granted reservation) {}

  @Override
  public void release(Reservation.Granted reservation) {}

  @Override
  public void record(UsageRecord record) {
    usage.add(record);
  }

  /** What was recorded so far, oldest first. */
  List<UsageRecord> usage() {
    return List.copyOf(usage);
  }
}
