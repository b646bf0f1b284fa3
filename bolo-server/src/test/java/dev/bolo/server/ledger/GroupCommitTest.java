package dev.bolo.server.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.bolo.testkit.Await;
import dev.bolo.testkit.FakeTicker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * The ledger's write path on a real SQLite file: writes nobody waits for share the next commit, and
 * write statements are prepared once per connection and hold no lock between uses.
 */
class GroupCommitTest {

  @TempDir Path dir;

  private HikariDataSource pool;
  private final AtomicInteger transactions = new AtomicInteger();

  /** The writer's linger passes only when a test moves this. */
  private final FakeTicker ticker = FakeTicker.atOneSecond();

  private Jdbc jdbc;
  private GroupCommit writes;

  @BeforeEach
  void openPool() throws SQLException {
    SQLiteConfig sqlite = new SQLiteConfig();
    sqlite.setJournalMode(SQLiteConfig.JournalMode.WAL);
    sqlite.setBusyTimeout(0);
    HikariConfig hikari = new HikariConfig();
    hikari.setJdbcUrl(url());
    hikari.setDataSourceProperties(sqlite.toProperties());
    hikari.setMaximumPoolSize(1);
    pool = new HikariDataSource(hikari);
    try (Connection c = pool.getConnection()) {
      c.createStatement().execute("CREATE TABLE rows (id INTEGER, what TEXT)");
    }
    jdbc = new Jdbc(counting(pool));
    writes = new GroupCommit(jdbc, ticker);
  }

  @AfterEach
  void closePool() {
    writes.close();
    pool.close();
  }

  @Test
  void writesNobodyWaitsForRideInTheTransactionOfTheNextWriteSomebodyWaitsFor() throws Exception {
    List<CompletableFuture<Integer>> rows = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      int id = i;
      rows.add(writes.submit("row", c -> jdbc.update(c, insert(), id, "usage")));
    }
    writes.await("charge", c -> jdbc.update(c, insert(), 99, "charge"), Duration.ofSeconds(5));

    assertThat(rows).allMatch(CompletableFuture::isDone);
    assertThat(transactions).hasValue(1);
    assertThat(count()).isEqualTo(6);
  }

  @Test
  void aWriteSomebodyWaitsForWakesALingeringWriterAtOnce() throws Exception {
    CompletableFuture<Integer> row =
        writes.submit("row", c -> jdbc.update(c, insert(), 1, "usage"));
    Await.until(writes::isLingering, () -> "the writer does not linger with the row");

    // The linger never ends by itself here (the ticker stands still): only the charge can wake it.
    writes.await("charge", c -> jdbc.update(c, insert(), 2, "charge"), Duration.ofSeconds(30));

    assertThat(row).isDone();
    assertThat(transactions).hasValue(1);
  }

  @Test
  void writesAfterCloseAreRefusedAndWritesBeforeItAreCommitted() throws Exception {
    CompletableFuture<Integer> before =
        writes.submit("row", c -> jdbc.update(c, insert(), 1, "usage"));
    writes.close();

    assertThat(before).isCompletedWithValue(1);
    assertThat(writes.submit("row", c -> jdbc.update(c, insert(), 2, "usage")))
        .isCompletedExceptionally();
    assertThat(count()).isEqualTo(1);
  }

  @Test
  void aWriteThatThrowsAnErrorFailsAloneAndTheWriterGoesOn() throws Exception {
    CompletableFuture<Integer> broken =
        writes.<Integer>submit(
            "row",
            c -> {
              throw new StackOverflowError("deep");
            });
    writes.await("charge", c -> jdbc.update(c, insert(), 1, "charge"), Duration.ofSeconds(5));

    assertThat(broken).isCompletedExceptionally();
    int changed =
        writes.await("charge", c -> jdbc.update(c, insert(), 2, "later"), Duration.ofSeconds(5));
    assertThat(changed).isEqualTo(1);
    assertThat(count()).isEqualTo(2);
  }

  @Test
  void writesNobodyWaitsForDoNotWakeTheWriterOneByOne() throws Exception {
    Set<String> before = writerThreads();
    try (GroupCommit own = new GroupCommit(new Jdbc(counting(pool)), ticker)) {
      Await.until(() -> writerThreads().size() > before.size(), () -> "no new writer thread");
      Set<String> started = writerThreads();
      started.removeAll(before);
      Path status = Path.of("/proc/self/task", started.iterator().next(), "status");
      long switchesBefore = switches(status);

      // 200 usage rows, one every 0.1 ms: all within one linger, which ends only when the test
      // moves the ticker.
      List<CompletableFuture<Integer>> rows = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        int id = i;
        rows.add(own.submit("row", c -> jdbc.update(c, insert(), id, "usage")));
        LockSupport.parkNanos(100_000);
      }
      // The linger ends with the rows in: one batch, however slowly they were offered.
      ticker.advance(GroupCommit.LINGER);
      CompletableFuture.allOf(rows.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
      long switched = switches(status) - switchesBefore;

      assertThat(count()).isEqualTo(200);
      // Woken for every write, the writer parked and woke about once a row (measured: 199-263
      // times); woken only to start the batch, 7-34 (commits with their disk flush, a second
      // batch when the rows outlast one linger on a busy machine).
      assertThat(switched).as("the writer's waits for 200 rows").isLessThan(100);
    }
  }

  /** The ids of this JVM's ledger writer threads, from /proc. */
  private static Set<String> writerThreads() {
    Set<String> ids = new HashSet<>();
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
      for (Path task : tasks) {
        try {
          if (Files.readString(task.resolve("comm")).strip().equals("bolo-ledger-wri")) {
            ids.add(task.getFileName().toString());
          }
        } catch (NoSuchFileException ended) {
          // A thread that ended meanwhile.
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ids;
  }

  /** How often a thread gave up its core to wait (voluntary context switches), from /proc. */
  private static long switches(Path status) throws IOException {
    for (String line : Files.readAllLines(status)) {
      if (line.startsWith("voluntary_ctxt_switches:")) {
        return Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
      }
    }
    throw new IllegalStateException("no voluntary_ctxt_switches in " + status);
  }

  @Test
  void aWriteNobodyWaitsForIsCommittedWhenItsLingerEndsWhenNothingElseComes() throws Exception {
    CompletableFuture<Integer> row =
        writes.submit("row", c -> jdbc.update(c, insert(), 1, "usage"));
    Await.until(writes::isLingering, () -> "the writer does not linger with the row");
    ticker.advance(GroupCommit.LINGER.minusNanos(1));
    assertThat(row).as("within its linger").isNotDone();

    ticker.advance(Duration.ofNanos(1));

    assertThat(row.get(30, TimeUnit.SECONDS)).isEqualTo(1);
    assertThat(count()).isEqualTo(1);
    assertThat(transactions).hasValue(1);
  }

  @Test
  void aWriteStatementIsPreparedOncePerConnectionAndHoldsNoLockBetweenUses() throws Exception {
    PreparedStatement first;
    org.sqlite.SQLiteConnection physical;
    @Nullable PreparedStatement second;
    try (Connection c = pool.getConnection()) {
      jdbc.update(c, insert(), 1, "a");
      first = java.util.Objects.requireNonNull(jdbc.keptStatements().forUpdate(c, insert()));
      physical = c.unwrap(org.sqlite.SQLiteConnection.class);
    }
    try (Connection c = pool.getConnection()) {
      jdbc.update(c, insert(), 2, "b");
      second = jdbc.keptStatements().forUpdate(c, insert());
    }
    assertThat(second).isSameAs(first);
    assertThat(jdbc.keptStatements().keepsFor(physical)).isTrue();
    // Kept per Jdbc, not per JVM: another ledger on the same database shares none of them.
    assertThat(new Jdbc(pool).keptStatements().keepsFor(physical)).isFalse();

    // Another connection (busy timeout 0) writes at once: the kept statement holds no lock.
    SQLiteDataSource direct = new SQLiteDataSource(config());
    direct.setUrl(url());
    try (Connection other = direct.getConnection()) {
      other.createStatement().execute("INSERT INTO rows VALUES (3, 'c')");
    }
    assertThat(count()).isEqualTo(3);

    // The pool retires its connection: the next one prepares its own.
    pool.getHikariPoolMXBean().softEvictConnections();
    try (Connection c = pool.getConnection()) {
      jdbc.update(c, insert(), 4, "d");
      assertThat(jdbc.keptStatements().forUpdate(c, insert())).isNotSameAs(first);
    }
    // The pool closes the retired connection in the background; the next new connection forgets
    // its statements (the one above may have come before the close).
    Await.until(Await.TIMEOUT, "the pool closed the retired connection", () -> isClosed(physical));
    pool.getHikariPoolMXBean().softEvictConnections();
    try (Connection c = pool.getConnection()) {
      jdbc.update(c, insert(), 5, "e");
    }
    assertThat(jdbc.keptStatements().keepsFor(physical)).isFalse();
    assertThat(count()).isEqualTo(5);
  }

  @Test
  void aTransactionCutShortByAnErrorLeavesNoneOfItsWrites() throws Exception {

    // A kept statement runs past the pool's tracking: the pool alone would commit the half.
    assertThatThrownBy(
            () ->
                jdbc.inTransaction(
                    "charge",
                    c -> {
                      jdbc.update(c, insert(), 1, "half a charge");
                      throw new StackOverflowError("deep");
                    }))
        .isInstanceOf(StackOverflowError.class);

    assertThat(count()).isZero();
    jdbc.inTransaction("charge", c -> jdbc.update(c, insert(), 2, "whole"));
    assertThat(count()).isEqualTo(1);
  }

  private String url() {
    return "jdbc:sqlite:" + dir.resolve("ledger.db");
  }

  private SQLiteConfig config() {
    SQLiteConfig sqlite = new SQLiteConfig();
    sqlite.setBusyTimeout(0);
    return sqlite;
  }

  private static String insert() {
    return "INSERT INTO rows (id, what) VALUES (?, ?)";
  }

  private int count() throws SQLException {
    try (Connection c = pool.getConnection();
        ResultSet r = c.createStatement().executeQuery("SELECT COUNT(*) FROM rows")) {
      r.next();
      return r.getInt(1);
    }
  }

  /** {@code pool}, counting the connections taken: one per transaction the writer runs. */
  private DataSource counting(HikariDataSource pool) {
    return (DataSource)
        java.lang.reflect.Proxy.newProxyInstance(
            DataSource.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              if (method.getName().equals("getConnection")) {
                transactions.incrementAndGet();
              }
              try {
                return method.invoke(pool, args);
              } catch (java.lang.reflect.InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  private static boolean isClosed(Connection connection) {
    try {
      return connection.isClosed();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
