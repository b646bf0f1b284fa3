package dev.bolo.server.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.bolo.server.work.Replay;
import dev.bolo.testkit.MutableClock;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
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
 * Rolling old usage up into daily totals ({@code BOLO_USAGE_RETENTION}), run against every database
 * the ledger supports: the usage report gives the same figures before and after, and the usage log
 * stops growing. Each test gets a fresh database seeded with ten days of varied traffic.
 */
abstract class UsageRetentionContractTest {

  private static final Duration RETENTION = Duration.ofDays(3);
  private static final Instant DAY_0 = Instant.parse("2026-06-01T00:00:00Z");
  private static final List<String> DEVICES = List.of("phone", "tablet", "watch");
  private static final int SEEDED_DAYS = 10;

  /** Minutes into each day at which devices send notes: both edges of the day included. */
  private static final List<Integer> MINUTES_OF_DAY = List.of(0, 90, 555, 780, 1_200, 1_439);

  @TempDir Path dataDir;

  final MutableClock clock = MutableClock.at(DAY_0);
  final AtomicLong ticker = new AtomicLong();
  LedgerConfig config;
  DurableLedger ledger;
  private final List<DurableLedger> opened = new ArrayList<>();

  /** Rows answered on or after the UTC day that the retention reaches into, when seeding ended. */
  private long recentRows;

  /** A JDBC URL of a fresh, empty database for one test; null for the embedded file database. */
  abstract @Nullable String freshDatabaseUrl() throws SQLException;

  @BeforeEach
  void openLedger() throws SQLException {
    config =
        LedgerConfig.embedded(dataDir)
            .withJdbcUrl(freshDatabaseUrl())
            .withUsageRetention(RETENTION);
    ledger = open(config);
    DEVICES.forEach(name -> ledger.add(new Device(name)));
  }

  @AfterEach
  void closeLedgers() {
    opened.forEach(DurableLedger::close);
    opened.clear();
  }

  private DurableLedger open(LedgerConfig configuration) {
    DurableLedger opening =
        Ledger.jdbc(configuration, new LedgerTime(clock, ticker::get, System::nanoTime));
    opened.add(opening);
    return opening;
  }

  /**
   * Ten days of traffic from a seeded random source: notes drawn from a small pool so that many are
   * answered again on later days, replays, failures, and a charge for each note transcribed afresh.
   * The clock then stands at 08:00 on day 10, so days 0 to 6 are past the retention.
   */
  private void seedTenDays() {
    Random random = new Random(11);
    for (int day = 0; day < SEEDED_DAYS; day++) {
      for (int minute : MINUTES_OF_DAY) {
        Instant at = DAY_0.plus(Duration.ofDays(day)).plus(Duration.ofMinutes(minute));
        // The last minute of the day ends on its last millisecond: an edge of the UTC day.
        clock.set(minute == 1_439 ? at.plusSeconds(59).plusMillis(999) : at);
        for (String device : DEVICES) {
          for (int n = random.nextInt(3); n > 0; n--) {
            answer(device, "note-" + random.nextInt(6), random);
          }
        }
      }
    }
    clock.set(DAY_0.plus(Duration.ofDays(SEEDED_DAYS)).plus(Duration.ofHours(8)));
    ledger.flushWrites();
  }

  private void answer(String device, String note, Random random) {
    String workKey = "key-" + note;
    // A third of the answers are replays, of which half joined running work.
    int draw = random.nextInt(6);
    Replay replay = draw == 0 ? Replay.JOINED : draw == 1 ? Replay.CACHED : Replay.NONE;
    boolean replayed = replay != Replay.NONE;
    String outcome = random.nextInt(5) == 0 ? "upstream_error" : "ok";
    long millis = 1_000L + random.nextInt(20) * 250L;
    if (!replayed && outcome.equals("ok")) {
      Reservation hold = ledger.reserve(new Device(device), workKey, millis, Duration.ofMinutes(5));
      ledger.commit((Reservation.Granted) hold, millis);
    }
    ledger.record(
        new UsageRecord(
            device,
            workKey,
            "0".repeat(64),
            millis,
            true,
            "offline",
            outcome,
            replay,
            "req-" + ticker.incrementAndGet(),
            clock.instant()));
    if (!clock.instant().isBefore(DAY_0.plus(Duration.ofDays(7)))) {
      recentRows++;
    }
  }

  /**
   * The report for all time, for each device, and from every UTC midnight of the seeded days on:
   * the windows the roll-up promises to keep exact.
   */
  private Map<String, List<DeviceUsage>> reports() {
    Map<String, List<DeviceUsage>> reports = new LinkedHashMap<>();
    reports.put("all time", ledger.usage(UsageQuery.all()));
    for (String device : DEVICES) {
      reports.put(device, ledger.usage(new UsageQuery(device, null)));
    }
    for (int day = 0; day <= SEEDED_DAYS; day++) {
      Instant since = DAY_0.plus(Duration.ofDays(day));
      reports.put("since " + since, ledger.usage(new UsageQuery(null, since)));
      reports.put("phone since " + since, ledger.usage(new UsageQuery("phone", since)));
    }
    return reports;
  }

  /** A roll-up through its own connection pool, as another gateway instance would run it. */
  private RolledUp rollUp(int rowsPerBatch, UsageRollUp.SliceHook hook) {
    try (HikariDataSource dataSource = LedgerDatabase.open(config)) {
      return new UsageRollUp(new Jdbc(dataSource), clock, RETENTION, rowsPerBatch, hook).run();
    }
  }

  private long count(String sql) {
    try (Connection c = DriverManager.getConnection(config.effectiveJdbcUrl());
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery(sql)) {
      r.next();
      return r.getLong(1);
    } catch (SQLException e) {
      throw new AssertionError(sql, e);
    }
  }

  private List<String> dailyTotals() {
    List<String> rows = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(config.effectiveJdbcUrl());
        Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery(
                "SELECT device_name, utc_day, requests, unique_notes, replays, charged_ms,"
                    + " saved_ms FROM usage_daily ORDER BY device_name, utc_day")) {
      while (r.next()) {
        List<String> cells = new ArrayList<>();
        for (int i = 1; i <= 7; i++) {
          cells.add(r.getString(i));
        }
        rows.add(String.join(" ", cells));
      }
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
    return rows;
  }

  private static long millisOfDay(int day) {
    return DAY_0.plus(Duration.ofDays(day)).toEpochMilli();
  }

  @Test
  void theReportIsExactlyTheSameAfterTheRollUp() {
    seedTenDays();
    Map<String, List<DeviceUsage>> before = reports();

    RolledUp rolled = ledger.rollUpUsage();

    assertThat(rolled.complete()).isTrue();
    assertThat(rolled.usageRows()).isPositive();
    assertThat(rolled.charges()).isPositive();
    assertThat(reports()).isEqualTo(before);
    // The seed answers notes again on later days: counting them per day would differ.
    DeviceUsage phone = ledger.usage(new UsageQuery("phone", null)).getFirst();
    assertThat(phone.uniqueNotes()).isLessThan(phone.requests() - phone.replays());
    // The failures of the rolled-up days are kept apart from the transcripts too.
    assertThat(phone.failed()).isPositive();
  }

  @Test
  void theDailyChartKeepsItsCountsAndItsJoinedAndCachedReplaysThroughTheRollUp() {
    seedTenDays();
    Map<String, List<UsageBucket>> before = dailyCharts();
    List<UsageBucket> all = java.util.Objects.requireNonNull(before.get("all"));
    assertThat(all.stream().mapToLong(UsageBucket::joinedReplays).sum()).isPositive();
    assertThat(all.stream().mapToLong(UsageBucket::cachedReplays).sum()).isPositive();

    RolledUp rolled = ledger.rollUpUsage();

    assertThat(rolled.usageRows()).isPositive();
    // Unique notes are the one figure that moves: a rolled-up note counts on its last day only.
    assertThat(withoutUniqueNotes(dailyCharts())).isEqualTo(withoutUniqueNotes(before));
  }

  /** Every seeded day as one bucket, for all devices and for each. */
  private Map<String, List<UsageBucket>> dailyCharts() {
    Map<String, List<UsageBucket>> charts = new LinkedHashMap<>();
    charts.put(
        "all",
        ledger.usageOverTime(
            new UsageSeriesQuery(null, DAY_0, Duration.ofDays(1), SEEDED_DAYS + 1)));
    for (String device : DEVICES) {
      charts.put(
          device,
          ledger.usageOverTime(
              new UsageSeriesQuery(device, DAY_0, Duration.ofDays(1), SEEDED_DAYS + 1)));
    }
    return charts;
  }

  private static Map<String, List<UsageBucket>> withoutUniqueNotes(
      Map<String, List<UsageBucket>> charts) {
    Map<String, List<UsageBucket>> stripped = new LinkedHashMap<>();
    charts.forEach(
        (name, buckets) ->
            stripped.put(
                name,
                buckets.stream()
                    .map(
                        b ->
                            new UsageBucket(
                                b.start(),
                                b.requests(),
                                0,
                                b.joinedReplays(),
                                b.cachedReplays(),
                                b.chargedMillis(),
                                b.savedMillis()))
                    .toList()));
    return stripped;
  }

  @Test
  void batchesOfOneDeviceGiveTheSameReportAsOneBatchPerDay() {
    seedTenDays();
    Map<String, List<DeviceUsage>> before = reports();

    RolledUp rolled = rollUp(1, UsageRollUp.SliceHook.NONE);

    assertThat(rolled.batches()).isEqualTo(7 * DEVICES.size());
    assertThat(reports()).isEqualTo(before);
  }

  @Test
  void rowsOlderThanTheRetentionAreGoneAndNewerOnesStay() {
    seedTenDays();
    long total = count("SELECT COUNT(*) FROM usage_log");

    RolledUp rolled = ledger.rollUpUsage();

    // 08:00 on day 10 minus three days is day 7, 08:00: days 0 to 6 are rolled up whole.
    long cutoff = millisOfDay(7);
    assertThat(count("SELECT COUNT(*) FROM usage_log WHERE answered_at < " + cutoff)).isZero();
    assertThat(count("SELECT COUNT(*) FROM work_charges WHERE charged_at < " + cutoff)).isZero();
    assertThat(count("SELECT COUNT(*) FROM usage_log")).isEqualTo(recentRows);
    assertThat(rolled.usageRows()).isEqualTo(total - recentRows);
    assertThat(count("SELECT COUNT(*) FROM usage_daily")).isEqualTo(7L * DEVICES.size());
    assertThat(count("SELECT MAX(utc_day) FROM usage_daily")).isEqualTo(cutoff / 86_400_000 - 1);
    assertThat(count("SELECT rolled_before FROM usage_rollup")).isEqualTo(cutoff);
  }

  @Test
  void rollingUpTwiceIsTheSameAsOnce() {
    seedTenDays();
    ledger.rollUpUsage();
    List<String> totals = dailyTotals();
    Map<String, List<DeviceUsage>> reports = reports();

    RolledUp again = ledger.rollUpUsage();

    assertThat(again).isEqualTo(RolledUp.NOTHING);
    assertThat(dailyTotals()).isEqualTo(totals);
    assertThat(reports()).isEqualTo(reports);
  }

  @Test
  void aCrashBetweenBatchesNeitherLosesNorDoublesARow() {
    seedTenDays();
    Map<String, List<DeviceUsage>> before = reports();
    long total = count("SELECT COUNT(*) FROM usage_log");
    AtomicInteger slices = new AtomicInteger();
    UsageRollUp.SliceHook crashOnTheFifth =
        (day, first, last) -> {
          if (slices.incrementAndGet() == 5) {
            throw new IllegalStateException("crash after writing totals of " + first);
          }
        };

    assertThatThrownBy(() -> rollUp(1, crashOnTheFifth))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("crash");

    // Four slices committed, the fifth rolled back whole.
    assertThat(count("SELECT COUNT(*) FROM usage_daily")).isEqualTo(4);
    assertThat(
            count("SELECT SUM(requests) FROM usage_daily")
                + count("SELECT COUNT(*) FROM usage_log"))
        .isEqualTo(total);
    assertThat(reports()).isEqualTo(before);

    RolledUp resumed = ledger.rollUpUsage();

    assertThat(resumed.complete()).isTrue();
    assertThat(count("SELECT COUNT(*) FROM usage_log")).isEqualTo(recentRows);
    assertThat(reports()).isEqualTo(before);
  }

  @Test
  void severalInstancesRollingUpAtOnceMoveEachRowOnce() throws Exception {
    seedTenDays();
    Map<String, List<DeviceUsage>> before = reports();
    int instances = 4;
    // Each instance's pool is open (and its schema check done) before any of them starts.
    List<HikariDataSource> pools = new ArrayList<>();
    ExecutorService threads = Executors.newFixedThreadPool(instances);
    try {
      for (int i = 0; i < instances; i++) {
        pools.add(LedgerDatabase.open(config));
      }
      CountDownLatch start = new CountDownLatch(1);
      List<Future<RolledUp>> runs = new ArrayList<>();
      for (HikariDataSource pool : pools) {
        UsageRollUp instance =
            new UsageRollUp(new Jdbc(pool), clock, RETENTION, 1, UsageRollUp.SliceHook.NONE);
        runs.add(
            threads.submit(
                () -> {
                  start.await();
                  return instance.run();
                }));
      }
      start.countDown();
      long moved = 0;
      for (Future<RolledUp> run : runs) {
        moved += run.get(60, TimeUnit.SECONDS).usageRows();
      }

      assertThat(reports()).isEqualTo(before);
      assertThat(moved)
          .isEqualTo(
              ledger.usage(UsageQuery.all()).stream().mapToLong(DeviceUsage::requests).sum()
                  - recentRows);
    } finally {
      threads.shutdownNow();
      pools.forEach(HikariDataSource::close);
    }
  }

  @Test
  void aRolledUpDayCountsFromItsUtcMidnight() {
    seedTenDays();
    ledger.rollUpUsage();
    Instant midday2 = DAY_0.plus(Duration.ofDays(2)).plus(Duration.ofHours(12));

    // Day 2 is rolled up: a report from its midday leaves it out, one from its midnight has it.
    assertThat(ledger.usage(new UsageQuery(null, midday2)))
        .isEqualTo(ledger.usage(new UsageQuery(null, DAY_0.plus(Duration.ofDays(3)))))
        .isNotEqualTo(ledger.usage(new UsageQuery(null, DAY_0.plus(Duration.ofDays(2)))));
  }

  @Test
  void theUsageLogStopsGrowingOnceDaysPassTheRetention() {
    Random random = new Random(5);
    int perDay = 40;
    List<Long> logSizes = new ArrayList<>();
    for (int day = 0; day < 12; day++) {
      clock.set(DAY_0.plus(Duration.ofDays(day)).plus(Duration.ofHours(9)));
      for (int n = 0; n < perDay; n++) {
        answer(DEVICES.get(n % DEVICES.size()), "note-" + random.nextInt(1_000), random);
      }
      ledger.rollUpUsage();
      logSizes.add(count("SELECT COUNT(*) FROM usage_log"));
    }

    // Today and the three days before it stay in detail; every older day is a total.
    long kept = (RETENTION.toDays() + 1) * perDay;
    assertThat(logSizes.subList(4, logSizes.size())).containsOnly(kept);
    assertThat(logSizes).allMatch(size -> size <= kept);
    assertThat(ledger.usage(UsageQuery.all()).stream().mapToLong(DeviceUsage::requests).sum())
        .isEqualTo(12L * perDay);
  }
}
