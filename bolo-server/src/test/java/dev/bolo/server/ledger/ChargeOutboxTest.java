package dev.bolo.server.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChargeOutboxTest {

  @TempDir Path dir;
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

  @AfterEach
  void stop() {
    scheduler.shutdownNow();
  }

  @Test
  void aChargeOwedWhenTheProcessDiesIsWrittenByTheNextProcessOnTheSameJournal() throws Exception {
    Path journal = dir.resolve("slot-0.charges");
    RecordingLedger away = new RecordingLedger();
    away.down = true;
    ChargeOutbox dying =
        new ChargeOutbox(away, scheduler, System::nanoTime, Thread::sleep, 100, journal);

    dying.charge(hold("h1", "work-1"), 1_500);
    dying.charge(hold("h2", "work-2"), 2_500);

    assertThat(dying.pending()).isEqualTo(2);
    assertThat(Files.readAllLines(journal)).hasSize(2);

    RecordingLedger back = new RecordingLedger();
    ChargeOutbox next =
        new ChargeOutbox(back, scheduler, System::nanoTime, Thread::sleep, 100, journal);

    assertThat(next.replay()).isEqualTo(2);
    assertThat(next.drain(Duration.ofSeconds(5))).isTrue();
    assertThat(back.charged).containsExactly("work-1=1500", "work-2=2500");
    assertThat(journal).doesNotExist();
  }

  @Test
  void aChargeTheLedgerRefusesForGoodDoesNotHoldUpTheOthers() throws Exception {
    RecordingLedger ledger = new RecordingLedger();
    ledger.refused = "work-bad";
    ChargeOutbox outbox =
        new ChargeOutbox(ledger, scheduler, System::nanoTime, Thread::sleep, 100, dir.resolve("j"));

    outbox.charge(hold("h1", "work-bad"), 1_000);
    outbox.charge(hold("h2", "work-good"), 2_000);

    assertThat(outbox.drain(Duration.ofSeconds(10))).isTrue();
    assertThat(ledger.charged).containsExactly("work-good=2000");
  }

  @Test
  void aChargeMadeSoonThatFailsLaterIsJournalledAndRetried() throws Exception {
    Path journal = dir.resolve("slot-0.charges");
    RecordingLedger ledger = new RecordingLedger();
    CompletableFuture<Charge> batch = new CompletableFuture<>();
    ledger.soon = batch;
    ChargeOutbox outbox =
        new ChargeOutbox(ledger, scheduler, System::nanoTime, Thread::sleep, 100, journal);

    outbox.charge(hold("h1", "work-1"), 1_500);
    assertThat(outbox.pending()).isZero();

    // The ledger's batch fails after charge() returned: the charge is owed, on disk, and retried.
    batch.completeExceptionally(
        new LedgerException("ledger batch failed", new SQLException("disk I/O error")));
    assertThat(outbox.pending()).isEqualTo(1);
    assertThat(Files.readAllLines(journal)).hasSize(1);
    ledger.soon = null;
    assertThat(outbox.drain(Duration.ofSeconds(5))).isTrue();
    assertThat(ledger.charged).containsExactly("work-1=1500");
    assertThat(journal).doesNotExist();
  }

  private static Reservation.Granted hold(String id, String work) {
    return new Reservation.Granted(id, "phone", work, 1_000);
  }

  /** Records charges; can be unreachable, or refuse one work for good. */
  private static final class RecordingLedger implements Ledger {
    volatile boolean down;
    volatile String refused = "";
    final List<String> charged = new ArrayList<>();

    /** When set, what {@link #commitSoon} answers instead of charging now. */
    volatile @Nullable CompletableFuture<Charge> soon;

    @Override
    public CompletionStage<Charge> commitSoon(Reservation.Granted reservation, long audioMillis) {
      CompletableFuture<Charge> later = soon;
      return later != null ? later : Ledger.super.commitSoon(reservation, audioMillis);
    }

    @Override
    public Optional<Device> authenticate(String token) {
      return Optional.empty();
    }

    @Override
    public Reservation reserve(Device device, String workKey, long audioMillis, Duration deadline) {
      throw new UnsupportedOperationException();
    }

    @Override
    public synchronized Charge commit(Reservation.Granted reservation, long audioMillis) {
      if (down) {
        throw new LedgerException("commit failed", new SQLException("connection refused"));
      }
      if (reservation.workKey().equals(refused)) {
        throw new IllegalArgumentException("no such device in the ledger: phone");
      }
      charged.add(reservation.workKey() + "=" + audioMillis);
      return Charge.CHARGED;
    }

    @Override
    public void release(Reservation.Granted reservation) {}

    @Override
    public void record(UsageRecord usage) {}
  }
}
