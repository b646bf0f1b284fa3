package dev.bolo.server.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.InstanceOfAssertFactories.type;

import dev.bolo.server.health.Readiness;
import dev.bolo.server.work.Replay;
import dev.bolo.testkit.MutableClock;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@link DurableLedger} contract, run against every database the ledger supports. Each test
 * gets a fresh, empty database.
 */
abstract class LedgerContractTest {

  private static final String NOTE_HASH = "a".repeat(64);

  @TempDir Path dataDir;

  final MutableClock clock = MutableClock.at(Instant.parse("2026-12-01T10:00:00Z"));
  final AtomicLong ticker = new AtomicLong();

  /** The usage rows' linger passes in real time, as in the gateway. */
  final LedgerTime time = new LedgerTime(clock, ticker::get, System::nanoTime);

  LedgerConfig config;
  private final List<DurableLedger> opened = new ArrayList<>();

  private static final String ID_A = "00000000-0000-0000-0000-00000000000a";
  private static final String ID_B = "00000000-0000-0000-0000-00000000000b";
  private final AtomicInteger works = new AtomicInteger();

  /** A hold for a new piece of work, due within five minutes. */
  Reservation reserve(Ledger ledger, String device, long audioMillis) {
    return ledger.reserve(
        new Device(device), "work-" + works.incrementAndGet(), audioMillis, Duration.ofMinutes(5));
  }

  /** Charges a granted hold for what it holds. */
  static Charge commit(Ledger ledger, Reservation hold) {
    Reservation.Granted granted = (Reservation.Granted) hold;
    return ledger.commit(granted, granted.audioMillis());
  }

  /** A JDBC URL of a fresh, empty database for one test; null for the embedded file database. */
  abstract @Nullable String freshDatabaseUrl() throws SQLException;

  @BeforeEach
  void createConfig() throws SQLException {
    config = LedgerConfig.embedded(dataDir).withJdbcUrl(freshDatabaseUrl());
  }

  @AfterEach
  void closeLedgers() {
    opened.forEach(DurableLedger::close);
    opened.clear();
  }

  DurableLedger open(LedgerConfig configuration) {
    DurableLedger ledger = Ledger.jdbc(configuration, time);
    opened.add(ledger);
    return ledger;
  }

  static String tokenOf(Enrollment enrollment) {
    assertThat(enrollment).isInstanceOf(Enrollment.Enrolled.class);
    return ((Enrollment.Enrolled) enrollment).token();
  }

  static DeviceInfo find(DeviceAdmin admin, String name) {
    return admin.devices().stream().filter(d -> d.name().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void addedDeviceAuthenticatesWithItsTokenUntilRevoked() {
    DurableLedger ledger = open(config);
    String token = tokenOf(ledger.add(new Device("phone")));

    assertThat(ledger.authenticate(token)).contains(new Device("phone"));
    assertThat(ledger.authenticate(token + "x")).isEmpty();
    assertThat(ledger.revoke("phone")).isTrue();
    assertThat(ledger.authenticate(token)).isEmpty();
  }

  @Test
  void devicesAreListedByNameWithCreationAndRevocationTimes() {
    DurableLedger ledger = open(config);
    ledger.add(new Device("tablet"));
    clock.advance(Duration.ofMinutes(1));
    ledger.add(new Device("phone"));
    clock.advance(Duration.ofMinutes(1));
    ledger.revoke("tablet");

    assertThat(ledger.devices())
        .extracting(DeviceInfo::name, DeviceInfo::created, DeviceInfo::revoked)
        .containsExactly(
            tuple("phone", Instant.parse("2026-12-01T10:01:00Z"), null),
            tuple(
                "tablet",
                Instant.parse("2026-12-01T10:00:00Z"),
                Instant.parse("2026-12-01T10:02:00Z")));
  }

  @Test
  void aStaticTokenForADeviceEnrolledWithItsOwnTokenIsRefusedAtStartNamingTheDevice() {
    DurableLedger cli = open(config);
    String enrolled = tokenOf(cli.add(new Device("phone")));
    cli.close();

    assertThatThrownBy(
            () ->
                open(
                    config.withStaticTokens(
                        Map.of("phone", "static-token-0123456789", "kiosk", "kiosk-token-0123"))))
        .isInstanceOf(LedgerConfigException.class)
        .hasMessageStartingWith("BOLO_DEVICE_TOKENS names phone, also enrolled")
        .hasMessageNotContaining("static-token")
        .hasMessageNotContaining(enrolled);
    // A static device that only the configuration knows still starts, again and again.
    DurableLedger kiosk = open(config.withStaticTokens(Map.of("kiosk", "kiosk-token-0123")));
    kiosk.close();
    DurableLedger again = open(config.withStaticTokens(Map.of("kiosk", "kiosk-token-0123")));
    assertThat(again.authenticate("kiosk-token-0123")).contains(new Device("kiosk"));
    assertThat(again.authenticate(enrolled)).contains(new Device("phone"));
  }

  @Test
  void aNameIsTakenOnceEvenAfterRevocation() {
    DurableLedger ledger = open(config);
    ledger.add(new Device("phone"));
    ledger.revoke("phone");

    assertThat(ledger.add(new Device("phone"))).isEqualTo(new Enrollment.NameTaken("phone"));
  }

  @Test
  void revokingOrLimitingAnUnknownDeviceReportsIt() {
    DurableLedger ledger = open(config);

    assertThat(ledger.revoke("ghost")).isFalse();
    assertThat(ledger.setQuota("ghost", 10)).isFalse();
  }

  @Test
  void revocationByAnotherProcessStopsTheTokenWithinASecond() {
    DurableLedger server = open(config);
    String token = tokenOf(server.add(new Device("phone")));
    assertThat(server.authenticate(token)).isPresent();

    try (DurableLedger cli = Ledger.jdbc(config, time)) {
      assertThat(cli.revoke("phone")).isTrue();
    }

    ticker.addAndGet(RememberedDevices.REMEMBERED.toNanos() / 2 - 1);
    assertThat(server.authenticate(token)).as("answered from memory").isPresent();
    ticker.addAndGet(RememberedDevices.REMEMBERED.toNanos() / 2 + 1);
    assertThat(server.authenticate(token)).isEmpty();
  }

  @Test
  void aLimitSetByAnotherProcessHoldsWithinASecondAndADeviceWithoutOneHoldsNothing() {
    DurableLedger server = open(config);
    server.add(new Device("phone"));
    Device phone = new Device("phone");
    Reservation unlimited = server.reserve(phone, "work-1", 5_000, Duration.ofMinutes(1));
    assertThat(unlimited).isInstanceOf(Reservation.Granted.class);
    assertThat(server.commit((Reservation.Granted) unlimited, 5_000)).isEqualTo(Charge.CHARGED);

    try (DurableLedger cli = Ledger.jdbc(config, time)) {
      assertThat(cli.setQuota("phone", 6)).isTrue();
    }
    ticker.addAndGet(RememberedDevices.REMEMBERED.toNanos());

    assertThat(server.reserve(phone, "work-2", 2_000, Duration.ofMinutes(1)))
        .isEqualTo(new Reservation.Exhausted(1_000));
  }

  @Test
  void aChargeMadeSoonLandsOnceAndAChargeAgainstAQuotaIsWrittenBeforeItReturns() throws Exception {
    DurableLedger ledger = open(config);
    ledger.add(new Device("free"));
    ledger.add(new Device("metered"));
    assertThat(ledger.setQuota("metered", 60)).isTrue();
    ticker.addAndGet(RememberedDevices.REMEMBERED.toNanos());

    Reservation.Granted free =
        (Reservation.Granted)
            ledger.reserve(new Device("free"), "work-f", 4_000, Duration.ofMinutes(1));
    CompletionStage<Charge> freeCharge = ledger.commitSoon(free, 4_000);
    CompletionStage<Charge> again = ledger.commitSoon(free, 4_000);
    assertThat(freeCharge.toCompletableFuture().get(10, TimeUnit.SECONDS))
        .isEqualTo(Charge.CHARGED);
    assertThat(again.toCompletableFuture().get(10, TimeUnit.SECONDS))
        .isEqualTo(Charge.ALREADY_CHARGED);
    assertThat(find(ledger, "free").chargedMillis()).isEqualTo(4_000);
    // The operator's list on the same ledger (the dashboard's) shows a charge made soon at once.
    Reservation.Granted next =
        (Reservation.Granted)
            ledger.reserve(new Device("free"), "work-g", 2_000, Duration.ofMinutes(1));
    CompletionStage<Charge> nextCharge = ledger.commitSoon(next, 2_000);
    assertThat(find(ledger, "free").chargedMillis()).isEqualTo(6_000);
    assertThat(nextCharge.toCompletableFuture()).isDone();

    Reservation.Granted metered =
        (Reservation.Granted)
            ledger.reserve(new Device("metered"), "work-m", 5_000, Duration.ofMinutes(1));
    CompletionStage<Charge> meteredCharge = ledger.commitSoon(metered, 5_000);
    // Written before it returned: another process sees it at once.
    assertThat(meteredCharge.toCompletableFuture()).isDone();
    try (DurableLedger cli = Ledger.jdbc(config, time)) {
      assertThat(find(cli, "metered").chargedMillis()).isEqualTo(5_000);
    }
  }

  @Test
  void tokensAreStoredOnlyAsHashes() throws SQLException {
    DurableLedger ledger =
        open(config.withStaticTokens(Map.of("kiosk", "static-token-0123456789")));
    String token = tokenOf(ledger.add(new Device("phone")));
    Reservation.Granted hold = (Reservation.Granted) reserve(ledger, "phone", 1_000);
    commit(ledger, hold);
    ledger.record(usage("phone", NOTE_HASH, 1_000, false, "ok"));

    List<String> cells = everyCell();

    assertThat(cells).contains(Tokens.hash(token), "phone", "kiosk");
    assertThat(cells)
        .noneMatch(cell -> cell.contains(token) || cell.contains(token.substring(5)))
        .noneMatch(cell -> cell.contains("static-token-0123456789"));
  }

  @Test
  void configuredDevicesAuthenticateGetTheTrialQuotaAndCanBeRevoked() {
    DurableLedger ledger =
        open(config.withStaticTokens(Map.of("kiosk", "kiosk-token")).withTrialSeconds(5));

    assertThat(ledger.authenticate("kiosk-token")).contains(new Device("kiosk"));
    assertThat(reserve(ledger, "kiosk", 6_000)).isEqualTo(new Reservation.Exhausted(5_000));
    assertThat(find(ledger, "kiosk").configuredOnly()).isTrue();

    ledger.revoke("kiosk");

    assertThat(ledger.authenticate("kiosk-token")).isEmpty();
  }

  @Test
  void concurrentUploadCreationsOfOneDeviceNeverPassItsBound() throws Exception {
    DurableLedger ledger = open(config);
    ledger.add(new Device("phone"));
    ledger.add(new Device("tablet"));
    Instant now = clock.instant();
    // One finished upload does not count; one of another device neither.
    ledger.uploadRegistry().create(upload("done", "phone", now), 3);
    ledger.uploadRegistry().finish("done", StoredUpload.State.DONE, "{}");
    assertThat(ledger.uploadRegistry().create(upload("other", "tablet", now), 3)).isTrue();
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Boolean>> answers = new ArrayList<>();
    try (ExecutorService pool = Executors.newFixedThreadPool(16)) {
      for (int i = 0; i < 16; i++) {
        String id = "upload-" + i;
        answers.add(
            pool.submit(
                () -> {
                  start.await();
                  return ledger.uploadRegistry().create(upload(id, "phone", now), 3);
                }));
      }
      start.countDown();
      int created = 0;
      for (Future<Boolean> answer : answers) {
        created += answer.get(30, TimeUnit.SECONDS) ? 1 : 0;
      }
      assertThat(created).isEqualTo(3);
    }
    assertThat(ledger.uploadRegistry().countUnfinished("phone", now)).isEqualTo(3);
    assertThat(ledger.uploadRegistry().countUnfinished("tablet", now)).isEqualTo(1);
    // Once they expire the device may open new ones.
    Instant later = now.plus(Duration.ofHours(2));
    assertThat(ledger.uploadRegistry().create(upload("fresh", "phone", later), 3)).isTrue();
  }

  private static StoredUpload upload(String id, String device, Instant createdAt) {
    return new StoredUpload(
        id,
        device,
        ID_A,
        "tus",
        1000,
        0,
        "{}",
        null,
        null,
        StoredUpload.State.OPEN,
        null,
        null,
        createdAt,
        createdAt.plus(Duration.ofHours(1)));
  }

  @Test
  void concurrentDistinctNotesAreGrantedOnlyWhatTheQuotaCovers() throws Exception {
    DurableLedger ledger = open(config.withTrialSeconds(50));
    ledger.add(new Device("phone"));
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Reservation>> answers = new ArrayList<>();
    try (ExecutorService pool = Executors.newFixedThreadPool(20)) {
      for (int i = 0; i < 20; i++) {
        answers.add(
            pool.submit(
                () -> {
                  start.await();
                  return reserve(ledger, "phone", 10_000);
                }));
      }
      start.countDown();
      List<Reservation.Granted> granted = new ArrayList<>();
      for (Future<Reservation> answer : answers) {
        if (answer.get(30, TimeUnit.SECONDS) instanceof Reservation.Granted g) {
          granted.add(g);
        }
      }

      assertThat(granted).hasSize(5);
      granted.forEach(g -> commit(ledger, g));
    }
    assertThat(find(ledger, "phone").chargedMillis()).isEqualTo(50_000);
    assertThat(reserve(ledger, "phone", 1)).isEqualTo(new Reservation.Exhausted(0));
  }

  @Test
  void releasedQuotaCanBeReservedAgain() {
    DurableLedger ledger = open(config.withTrialSeconds(10));
    ledger.add(new Device("phone"));
    Reservation first = reserve(ledger, "phone", 10_000);
    assertThat(reserve(ledger, "phone", 1_000)).isInstanceOf(Reservation.Held.class);

    ledger.release((Reservation.Granted) first);

    assertThat(reserve(ledger, "phone", 10_000)).isInstanceOf(Reservation.Granted.class);
    assertThat(find(ledger, "phone").chargedMillis()).isZero();
  }

  @Test
  void aDeviceWithNothingLeftIsRefusedEvenAnEmptyReservation() {
    DurableLedger ledger = open(config.withTrialSeconds(10));
    ledger.add(new Device("phone"));
    assertThat(reserve(ledger, "phone", 0)).isInstanceOf(Reservation.Granted.class);
    commit(ledger, reserve(ledger, "phone", 10_000));

    assertThat(reserve(ledger, "phone", 0)).isEqualTo(new Reservation.Exhausted(0));
  }

  @Test
  void aReservationIsChargedOnceHoweverOftenItIsCommitted() {
    DurableLedger ledger = open(config.withTrialSeconds(30));
    ledger.add(new Device("phone"));
    Reservation.Granted hold = (Reservation.Granted) reserve(ledger, "phone", 10_000);

    commit(ledger, hold);
    commit(ledger, hold);
    ledger.release(hold);

    assertThat(find(ledger, "phone").chargedMillis()).isEqualTo(10_000);
    assertThat(reserve(ledger, "phone", 25_000)).isEqualTo(new Reservation.Exhausted(20_000));
  }

  @Test
  void aChargeForADeviceTheLedgerDoesNotKnowFailsAndChargesNothing() {
    DurableLedger ledger = open(config);
    ledger.add(new Device("phone"));
    Reservation.Granted known = (Reservation.Granted) reserve(ledger, "phone", 1_000);
    Reservation.Granted unknown =
        new Reservation.Granted(known.id(), "ghost", known.workKey(), known.audioMillis());

    assertThatThrownBy(() -> ledger.commit(unknown, 1_000)).isInstanceOf(RuntimeException.class);
    assertThat(find(ledger, "phone").chargedMillis()).isZero();
    // The same work is still charged once for the device that has it.
    assertThat(commit(ledger, known)).isEqualTo(Charge.CHARGED);
    assertThat(find(ledger, "phone").chargedMillis()).isEqualTo(1_000);
  }

  @Test
  void holdsOfACrashedInstanceStopCountingOnceTheirWorksDeadlineHasPassed() {
    DurableLedger ledger = open(config.withTrialSeconds(10));
    ledger.add(new Device("phone"));
    assertThat(ledger.reserve(new Device("phone"), "crashed-work", 10_000, Duration.ofMinutes(5)))
        .isInstanceOf(Reservation.Granted.class);

    clock.advance(Duration.ofMinutes(4));
    // Held, not spent: the phone is told to resend, with the time until the hold ends (capped).
    assertThat(reserve(ledger, "phone", 10_000))
        .isEqualTo(new Reservation.Held(Duration.ofSeconds(30)));
    clock.advance(Duration.ofSeconds(59));
    assertThat(reserve(ledger, "phone", 10_000))
        .isEqualTo(new Reservation.Held(Duration.ofSeconds(1)));
    clock.advance(Duration.ofSeconds(1));

    assertThat(reserve(ledger, "phone", 10_000)).isInstanceOf(Reservation.Granted.class);
  }

  @Test
  void holdsLeftByThisInstancesEarlierRunAreDroppedWhenItReopensButNotAnotherInstances() {
    try (DurableLedger crashed =
            Ledger.jdbc(config.withTrialSeconds(30).withInstanceId(ID_A), time);
        DurableLedger other = Ledger.jdbc(config.withTrialSeconds(30).withInstanceId(ID_B), time)) {
      crashed.add(new Device("phone"));
      assertThat(reserve(crashed, "phone", 10_000)).isInstanceOf(Reservation.Granted.class);
      assertThat(reserve(other, "phone", 10_000)).isInstanceOf(Reservation.Granted.class);
    }

    DurableLedger restarted = open(config.withTrialSeconds(30).withInstanceId(ID_A));

    // Only the other instance's 10 s are still held: 20 s fit, 21 s must wait for it.
    assertThat(reserve(restarted, "phone", 21_000)).isInstanceOf(Reservation.Held.class);
    assertThat(reserve(restarted, "phone", 20_000)).isInstanceOf(Reservation.Granted.class);
  }

  @Test
  void oneWorkIsChargedOnceHoweverManyRunsCommitIt() {
    DurableLedger ledger = open(config.withTrialSeconds(60));
    ledger.add(new Device("phone"));
    Reservation.Granted first =
        (Reservation.Granted)
            ledger.reserve(new Device("phone"), "work-x", 10_000, Duration.ofMinutes(5));
    Reservation.Granted second =
        (Reservation.Granted)
            ledger.reserve(new Device("phone"), "work-x", 10_000, Duration.ofMinutes(5));

    assertThat(ledger.commit(first, 10_000)).isEqualTo(Charge.CHARGED);
    assertThat(ledger.commit(second, 10_000)).isEqualTo(Charge.ALREADY_CHARGED);
    assertThat(ledger.commit(first, 10_000)).isEqualTo(Charge.ALREADY_CHARGED);

    assertThat(find(ledger, "phone").chargedMillis()).isEqualTo(10_000);
    // Both holds are gone: 50 s are left.
    assertThat(reserve(ledger, "phone", 51_000)).isEqualTo(new Reservation.Exhausted(50_000));
  }

  @Test
  void concurrentCommitsOfOneWorkFromSeveralLedgersChargeOnce() throws Exception {
    DurableLedger setup = open(config);
    setup.add(new Device("phone"));
    List<DurableLedger> instances = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      instances.add(open(config));
    }
    List<Reservation.Granted> holds = new ArrayList<>();
    for (DurableLedger instance : instances) {
      holds.add(
          (Reservation.Granted)
              instance.reserve(new Device("phone"), "work-y", 4_000, Duration.ofMinutes(5)));
    }
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Charge>> charges = new ArrayList<>();
    try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
      for (int i = 0; i < 4; i++) {
        DurableLedger instance = instances.get(i);
        Reservation.Granted hold = holds.get(i);
        charges.add(
            pool.submit(
                () -> {
                  start.await();
                  return instance.commit(hold, 4_000);
                }));
      }
      start.countDown();
      List<Charge> results = new ArrayList<>();
      for (Future<Charge> charge : charges) {
        results.add(charge.get(30, TimeUnit.SECONDS));
      }
      assertThat(results).containsOnlyOnce(Charge.CHARGED);
    }
    assertThat(find(setup, "phone").chargedMillis()).isEqualTo(4_000);
  }

  @Test
  void aChargedWorkHoldsNoQuotaWhenItRunsAgainWithinTheWindow() {
    DurableLedger ledger =
        open(config.withTrialSeconds(10).withChargeWindow(Duration.ofMinutes(10)));
    ledger.add(new Device("phone"));
    Reservation.Granted first =
        (Reservation.Granted)
            ledger.reserve(new Device("phone"), "work-z", 10_000, Duration.ofMinutes(5));
    ledger.commit(first, 10_000);

    Reservation again =
        ledger.reserve(new Device("phone"), "work-z", 10_000, Duration.ofMinutes(5));

    assertThat(again)
        .isEqualTo(
            new Reservation.Granted(((Reservation.Granted) again).id(), "phone", "work-z", 0));
    assertThat(ledger.commit((Reservation.Granted) again, 10_000))
        .isEqualTo(Charge.ALREADY_CHARGED);
    assertThat(find(ledger, "phone").chargedMillis()).isEqualTo(10_000);
  }

  @Test
  void theSameWorkIsChargedAgainOnceTheWindowHasPassed() {
    DurableLedger ledger = open(config.withChargeWindow(Duration.ofMinutes(10)));
    ledger.add(new Device("phone"));
    ledger.commit(
        (Reservation.Granted)
            ledger.reserve(new Device("phone"), "work-w", 3_000, Duration.ofMinutes(5)),
        3_000);

    clock.advance(Duration.ofMinutes(10));
    Reservation.Granted later =
        (Reservation.Granted)
            ledger.reserve(new Device("phone"), "work-w", 3_000, Duration.ofMinutes(5));

    assertThat(later.audioMillis()).isEqualTo(3_000);
    assertThat(ledger.commit(later, 3_000)).isEqualTo(Charge.CHARGED);
    assertThat(find(ledger, "phone").chargedMillis()).isEqualTo(6_000);
  }

  @Test
  void aSecondRunOfHeldWorkHoldsNothingSoItNeverMeetsA402() {
    DurableLedger ledger = open(config.withTrialSeconds(10));
    ledger.add(new Device("phone"));
    Reservation.Granted first =
        (Reservation.Granted)
            ledger.reserve(new Device("phone"), "work-u", 8_000, Duration.ofMinutes(5));

    Reservation second =
        ledger.reserve(new Device("phone"), "work-u", 8_000, Duration.ofMinutes(5));

    assertThat(second).isInstanceOf(Reservation.Granted.class);
    assertThat(((Reservation.Granted) second).audioMillis()).isZero();
    assertThat(ledger.commit(first, 8_000)).isEqualTo(Charge.CHARGED);
    assertThat(ledger.commit((Reservation.Granted) second, 8_000))
        .isEqualTo(Charge.ALREADY_CHARGED);
    assertThat(find(ledger, "phone").chargedMillis()).isEqualTo(8_000);
  }

  @Test
  void aChargeLandsEvenAfterItsHoldExpired() {
    DurableLedger ledger = open(config);
    ledger.add(new Device("phone"));
    Reservation.Granted hold =
        (Reservation.Granted)
            ledger.reserve(new Device("phone"), "work-v", 5_000, Duration.ofSeconds(30));

    clock.advance(Duration.ofMinutes(1));
    reserve(ledger, "phone", 1); // sweeps expired holds

    assertThat(ledger.commit(hold, 4_500)).isEqualTo(Charge.CHARGED);
    assertThat(find(ledger, "phone").chargedMillis()).isEqualTo(4_500);
  }

  @Test
  void aDevicesOwnQuotaReplacesTheTrialAndZeroMeansUnlimited() {
    DurableLedger ledger = open(config.withTrialSeconds(10));
    ledger.add(new Device("phone"));

    assertThat(ledger.setQuota("phone", 60)).isTrue();
    assertThat(reserve(ledger, "phone", 60_000)).isInstanceOf(Reservation.Granted.class);
    assertThat(reserve(ledger, "phone", 1)).isInstanceOf(Reservation.Held.class);

    ledger.setQuota("phone", 0);

    assertThat(reserve(ledger, "phone", 3_600_000)).isInstanceOf(Reservation.Granted.class);
    assertThat(find(ledger, "phone").isUnlimited()).isTrue();
  }

  @Test
  void withoutATrialQuotaDevicesAreUnlimitedButStillCharged() {
    DurableLedger ledger = open(config);
    ledger.add(new Device("phone"));
    Reservation hold = reserve(ledger, "phone", 7_200_000);

    commit(ledger, hold);

    assertThat(find(ledger, "phone").chargedMillis()).isEqualTo(7_200_000);
    assertThat(find(ledger, "phone").remainingMillis()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void usageIsSummarisedPerDevice() {
    DurableLedger ledger = open(config);
    ledger.add(new Device("phone"));
    ledger.add(new Device("tablet"));
    commit(ledger, reserve(ledger, "phone", 10_000));
    commit(ledger, reserve(ledger, "phone", 4_000));
    commit(ledger, reserve(ledger, "tablet", 2_000));
    String note1 = "1".repeat(64);
    String note2 = "2".repeat(64);
    String note3 = "3".repeat(64);
    ledger.record(usage("phone", note1, 10_000, false, "ok"));
    ledger.record(usage("phone", note1, 10_000, true, "ok"));
    ledger.record(usage("phone", note1, 10_000, true, "ok"));
    ledger.record(usage("phone", note2, 4_000, false, "ok"));
    ledger.record(usage("phone", note3, 3_000, false, "upstream_error"));
    // A copy that joined the failed call: a replay, of work that failed.
    ledger.record(usage("phone", note3, 3_000, true, "upstream_error"));
    ledger.record(usage("tablet", note1, 2_000, false, "ok"));

    assertThat(ledger.usage(UsageQuery.all()))
        .containsExactly(
            new DeviceUsage("phone", 6, 2, 3, 1, 14_000, 20_000),
            new DeviceUsage("tablet", 1, 1, 0, 0, 2_000, 0));
    DeviceUsage phone = ledger.usage(new UsageQuery("phone", null)).getFirst();
    assertThat(phone.redundancyRate()).isEqualTo(0.5);
    // Every request in one column: its own work's transcript, a replay, or its own work failed.
    assertThat(phone.transcribed()).isEqualTo(2);
    assertThat(phone.transcribed() + phone.replays() + phone.failed()).isEqualTo(phone.requests());
  }

  @Test
  void usageCanBeLimitedToOneDeviceAndATimeRange() {
    DurableLedger ledger = open(config);
    ledger.add(new Device("phone"));
    commit(ledger, reserve(ledger, "phone", 1_000));
    ledger.record(usage("phone", NOTE_HASH, 1_000, false, "ok"));
    clock.advance(Duration.ofDays(1));
    Instant since = clock.instant();
    ledger.record(usage("phone", NOTE_HASH, 1_000, true, "ok"));
    ledger.record(usage("tablet", NOTE_HASH, 1_000, false, "ok"));

    assertThat(ledger.usage(new UsageQuery("phone", since)))
        .containsExactly(new DeviceUsage("phone", 1, 1, 1, 0, 0, 1_000));
    assertThat(ledger.usage(new UsageQuery("phone", null)))
        .containsExactly(new DeviceUsage("phone", 2, 1, 1, 0, 1_000, 1_000));
    assertThat(ledger.usage(new UsageQuery("nobody", null))).isEmpty();
  }

  @Test
  void usageOverTimeCountsEachIntervalAndSplitsReplaysIntoJoinedAndCached() {
    DurableLedger ledger = open(config);
    ledger.add(new Device("phone"));
    ledger.add(new Device("tablet"));
    String note1 = "1".repeat(64);
    String note2 = "2".repeat(64);
    String note3 = "3".repeat(64);
    Instant nine = Instant.parse("2026-12-01T09:00:00Z");
    clock.set(nine.plus(Duration.ofMinutes(60)));
    commit(ledger, reserve(ledger, "phone", 10_000));
    ledger.record(usage("phone", note1, 10_000, Replay.NONE, "ok"));
    ledger.record(usage("phone", note1, 10_000, Replay.JOINED, "ok"));
    ledger.record(usage("phone", note1, 10_000, Replay.CACHED, "ok"));
    clock.set(nine.plus(Duration.ofMinutes(150)));
    ledger.record(usage("phone", note1, 10_000, Replay.CACHED, "ok"));
    ledger.record(usage("phone", note2, 4_000, Replay.NONE, "upstream_error"));
    commit(ledger, reserve(ledger, "tablet", 3_000));
    ledger.record(usage("tablet", note3, 3_000, Replay.NONE, "ok"));
    // The last millisecond of the range, and the first one after it.
    clock.set(nine.plus(Duration.ofHours(3)).minusMillis(1));
    ledger.record(usage("tablet", note3, 3_000, Replay.JOINED, "ok"));
    clock.set(nine.plus(Duration.ofHours(3)));
    ledger.record(usage("tablet", note3, 3_000, Replay.CACHED, "ok"));

    List<UsageBucket> phone =
        ledger.usageOverTime(new UsageSeriesQuery("phone", nine, Duration.ofHours(1), 3));
    List<UsageBucket> all =
        ledger.usageOverTime(new UsageSeriesQuery(null, nine, Duration.ofHours(1), 3));

    Instant ten = nine.plus(Duration.ofHours(1));
    Instant eleven = nine.plus(Duration.ofHours(2));
    assertThat(phone)
        .containsExactly(
            UsageBucket.empty(nine),
            new UsageBucket(ten, 3, 1, 1, 1, 10_000, 20_000),
            new UsageBucket(eleven, 2, 1, 0, 1, 0, 10_000));
    assertThat(all)
        .containsExactly(
            UsageBucket.empty(nine),
            new UsageBucket(ten, 3, 1, 1, 1, 10_000, 20_000),
            new UsageBucket(eleven, 4, 2, 1, 1, 3_000, 13_000));
    assertThat(all.get(2).redundancyRate()).isEqualTo(0.5);
    assertThat(ledger.usageOverTime(new UsageSeriesQuery("nobody", nine, Duration.ofHours(1), 3)))
        .allSatisfy(bucket -> assertThat(bucket.requests()).isZero());
  }

  @Test
  void reopeningTheDatabaseKeepsDevicesQuotaAndUsage() {
    String token;
    try (DurableLedger before = Ledger.jdbc(config.withTrialSeconds(30), time)) {
      token = tokenOf(before.add(new Device("phone")));
      before.add(new Device("tablet"));
      before.revoke("tablet");
      before.setQuota("phone", 20);
      commit(before, reserve(before, "phone", 15_000));
      before.record(usage("phone", NOTE_HASH, 15_000, false, "ok"));
    }

    DurableLedger after = open(config.withTrialSeconds(30));

    assertThat(after.authenticate(token)).contains(new Device("phone"));
    assertThat(find(after, "tablet").isRevoked()).isTrue();
    assertThat(find(after, "phone"))
        .returns(20_000L, DeviceInfo::quotaOverrideMillis)
        .returns(15_000L, DeviceInfo::chargedMillis);
    assertThat(reserve(after, "phone", 6_000))
        .asInstanceOf(type(Reservation.Exhausted.class))
        .returns(5_000L, Reservation.Exhausted::remainingMillis);
    assertThat(after.usage(UsageQuery.all()))
        .containsExactly(new DeviceUsage("phone", 1, 1, 0, 0, 15_000, 0));
  }

  @Test
  void readinessFollowsTheDatabase() {
    DurableLedger ledger = Ledger.jdbc(config, time);
    assertThat(ledger.readiness().state()).isEqualTo(Readiness.State.READY);

    ledger.close();

    assertThat(ledger.readiness().state()).isEqualTo(Readiness.State.DOWN);
  }

  @Test
  void theRateLimitIsEnforcedPerDevice() {
    DurableLedger ledger = open(config.withRequestsPerMinute(2));

    assertThat(ledger.admit(new Device("phone"))).isEqualTo(RateDecision.allowed());
    assertThat(ledger.admit(new Device("phone"))).isEqualTo(RateDecision.allowed());
    assertThat(ledger.admit(new Device("phone")))
        .isEqualTo(new RateDecision.Limited(Duration.ofSeconds(30)));
    assertThat(ledger.admit(new Device("tablet"))).isEqualTo(RateDecision.allowed());
  }

  UsageRecord usage(
      String device, String audioHash, long millis, boolean replayed, String outcome) {
    return new UsageRecord(
        device,
        "key-" + audioHash,
        audioHash,
        millis,
        true,
        "offline",
        outcome,
        replayed,
        "req-" + ticker.incrementAndGet(),
        clock.instant());
  }

  UsageRecord usage(String device, String audioHash, long millis, Replay replay, String outcome) {
    return new UsageRecord(
        device,
        "key-" + device + "-" + audioHash,
        audioHash,
        millis,
        true,
        "offline",
        outcome,
        replay,
        "req-" + ticker.incrementAndGet(),
        clock.instant());
  }

  /** Every value in every table of the database, as text. */
  private List<String> everyCell() throws SQLException {
    List<String> cells = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(config.effectiveJdbcUrl())) {
      DatabaseMetaData meta = c.getMetaData();
      List<String> tables = new ArrayList<>();
      try (ResultSet r = meta.getTables(null, null, "%", new String[] {"TABLE"})) {
        while (r.next()) {
          tables.add(r.getString("TABLE_NAME"));
        }
      }
      assertThat(tables).contains("devices", "quota_holds", "usage_log");
      for (String table : tables) {
        try (Statement s = c.createStatement();
            ResultSet r = s.executeQuery("SELECT * FROM " + table)) {
          int columns = r.getMetaData().getColumnCount();
          while (r.next()) {
            for (int i = 1; i <= columns; i++) {
              String value = r.getString(i);
              if (value != null) {
                cells.add(value);
              }
            }
          }
        }
      }
    }
    return cells;
  }
}
