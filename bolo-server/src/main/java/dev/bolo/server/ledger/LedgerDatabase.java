package dev.bolo.server.ledger;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.sqlite.SQLiteConfig;

/**
 * Opens the ledger's connection pool and migrates its schema.
 *
 * <p>The embedded default is an SQLite file in WAL mode rather than H2. An operator runs {@code
 * ./bolo devices revoke NAME} in another process while the gateway is serving, and the revocation
 * must hold at once: SQLite lets several processes share one file (WAL readers never block, writers
 * take turns), whereas H2 in file mode locks the file to one process unless it also starts a TCP
 * server. SQLite's file format is also stable across versions, so an upgrade never strands a device
 * database.
 */
final class LedgerDatabase {

  /** How long an SQLite writer waits for another (another process included) before failing. */
  private static final int SQLITE_BUSY_TIMEOUT_MILLIS = 10_000;

  /** The page cache of the one connection, in KiB. */
  private static final int SQLITE_CACHE_KIB = 32 * 1024;

  /**
   * SQLite runs one writer at a time. Several connections in one process would contend for its lock
   * through SQLite's sleeping busy handler, which under load (measured: 50 concurrent uploads)
   * starves some of them past the busy timeout; one connection makes the process's writers queue
   * fairly in the pool instead. Other processes (the CLI) still wait through the busy timeout.
   */
  private static final int SQLITE_POOL_SIZE = 1;

  /**
   * SQLite connections that only read, for the lookups a request waits for (a token, a device's
   * limit). In WAL mode a reader never waits for the writer; on the one read-write connection it
   * waited for every commit queued before it, and under 2,000 notes in flight the one device's
   * limit, reloaded there, held all its notes back together (measured: 140 requests blocked on the
   * reload).
   */
  private static final int SQLITE_READER_POOL_SIZE = 2;

  private static final int POSTGRES_POOL_SIZE = 10;

  private static final long POSTGRES_CONNECTION_TIMEOUT_MILLIS = 3_000;

  private LedgerDatabase() {}

  /** A migrated, pooled data source for {@code config}; close it to release the pool. */
  static HikariDataSource open(LedgerConfig config) {
    String url = config.effectiveJdbcUrl();
    HikariConfig hikari = new HikariConfig();
    hikari.setPoolName("bolo-ledger");
    hikari.setJdbcUrl(url);
    if (url.startsWith("jdbc:sqlite:")) {
      createDataDir(config);
      if (config.jdbcUrl() == null) {
        PrivateFiles.createFile(embeddedFile(config));
      }
      hikari.setDataSourceProperties(sqliteProperties().toProperties());
      hikari.setMaximumPoolSize(SQLITE_POOL_SIZE);
    } else if (url.startsWith("jdbc:postgresql:")) {
      hikari.setMaximumPoolSize(POSTGRES_POOL_SIZE);
      // While the database is away, a request learns it within seconds (503, resend) instead of
      // queueing for Hikari's default 30 s; a half-open socket cannot hold a call forever.
      hikari.setConnectionTimeout(POSTGRES_CONNECTION_TIMEOUT_MILLIS);
      hikari.addDataSourceProperty("connectTimeout", "3");
      hikari.addDataSourceProperty("socketTimeout", "15");
      // No server-side prepared statements: behind PgBouncer in transaction mode (what managed
      // PostgreSQL offers) a connection's next transaction may run on another server connection,
      // where "S_1" does not exist or exists already. Unnamed statements work through any pooler.
      // A URL that sets prepareThreshold itself (a direct server, say) keeps its own.
      if (!url.contains("prepareThreshold=")) {
        hikari.addDataSourceProperty("prepareThreshold", "0");
      }
    } else {
      throw new IllegalArgumentException(
          "ledger database must be jdbc:postgresql: or jdbc:sqlite: " + LedgerConfig.redacted(url));
    }
    HikariDataSource dataSource;
    try {
      dataSource = new HikariDataSource(hikari);
    } catch (RuntimeException e) {
      throw new LedgerException(
          "cannot connect to the ledger database " + LedgerConfig.redacted(url), e);
    }
    try {
      String migrationUrl = config.migrationUrl();
      FluentConfiguration flyway =
          Flyway.configure().locations("classpath:db/migration").failOnMissingLocations(true);
      // A pooler's URL serves the ledger; the schema may change through the server itself.
      (migrationUrl == null
              ? flyway.dataSource(dataSource)
              : flyway.dataSource(migrationUrl, null, null))
          .load()
          .migrate();
    } catch (FlywayException e) {
      dataSource.close();
      throw new LedgerException(
          "cannot migrate the ledger database " + LedgerConfig.redacted(url), e);
    }
    if (config.jdbcUrl() == null) {
      // SQLite gives its WAL and shared-memory files the database file's mode; checked all the
      // same, since they may predate this version.
      Path file = embeddedFile(config);
      for (String suffix : new String[] {"", "-wal", "-shm"}) {
        PrivateFiles.file(file.resolveSibling(file.getFileName() + suffix));
      }
    }
    return dataSource;
  }

  /**
   * The pool for lookups: for SQLite, connections of their own that only read, to the migrated file
   * ({@link #SQLITE_READER_POOL_SIZE}); for PostgreSQL, {@code ledger} itself. Close it (when it is
   * not {@code ledger}) with the ledger.
   */
  static HikariDataSource openReaders(LedgerConfig config, HikariDataSource ledger) {
    String url = config.effectiveJdbcUrl();
    if (!isSqliteFile(url)) {
      // PostgreSQL's pool serves reads as well; an in-memory SQLite database is not shared with
      // other connections (plain) or answers a reader that meets the writer's table lock with an
      // error at once instead of a wait (shared cache).
      return ledger;
    }
    HikariConfig hikari = new HikariConfig();
    hikari.setPoolName("bolo-ledger-read");
    hikari.setJdbcUrl(url);
    // Not opened read-only (the pool sets the flag on every connection, which the driver refuses
    // once a connection is open): these connections only ever run SELECTs, in auto-commit, which
    // in WAL mode take no write lock.
    hikari.setDataSourceProperties(sqliteProperties().toProperties());
    hikari.setMaximumPoolSize(SQLITE_READER_POOL_SIZE);
    try {
      return new HikariDataSource(hikari);
    } catch (RuntimeException e) {
      throw new LedgerException(
          "cannot open the ledger database for reading " + LedgerConfig.redacted(url), e);
    }
  }

  /** Whether {@code url} names an SQLite database in a file (not in memory). */
  static boolean isSqliteFile(String url) {
    if (!url.startsWith("jdbc:sqlite:")) {
      return false;
    }
    String name = url.substring("jdbc:sqlite:".length());
    return !name.isEmpty()
        && !name.startsWith(":memory:")
        && !name.contains("mode=memory")
        && !name.startsWith("file::memory:");
  }

  private static SQLiteConfig sqliteProperties() {
    SQLiteConfig sqlite = new SQLiteConfig();
    sqlite.setJournalMode(SQLiteConfig.JournalMode.WAL);
    sqlite.setBusyTimeout(SQLITE_BUSY_TIMEOUT_MILLIS);
    // Take the write lock when a transaction begins, not at its first write: two transactions that
    // both read then write (reserve does) would otherwise deadlock and one fail with SQLITE_BUSY.
    sqlite.setTransactionMode(SQLiteConfig.TransactionMode.IMMEDIATE);
    // FULL: a revocation, a charge or a quota change acknowledged to the operator is on disk
    // before the commit returns, and survives power loss. NORMAL in WAL mode may lose the last
    // commits at a power cut, which for a ledger means charges and revocations silently undone.
    sqlite.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
    sqlite.enforceForeignKeys(true);
    // The ledger reads no generated keys; by default the driver asks for the last row id after
    // every INSERT, a tenth of the ledger writer's CPU under load.
    sqlite.setGetGeneratedKeys(false);
    // SQLite's default page cache is 2 MB; the usage log's indexes outgrow it within minutes of
    // load, and every insert then reads its index pages back from the file.
    sqlite.setCacheSize(-SQLITE_CACHE_KIB);
    return sqlite;
  }

  private static void createDataDir(LedgerConfig config) {
    // Only the embedded file lives in the data dir; an explicit jdbc:sqlite: URL names its own.
    if (config.jdbcUrl() != null) {
      return;
    }
    try {
      PrivateFiles.directory(config.dataDir());
    } catch (UncheckedIOException e) {
      throw new LedgerException("cannot create data dir " + config.dataDir(), e);
    }
  }

  private static Path embeddedFile(LedgerConfig config) {
    return config.dataDir().resolve(LedgerConfig.EMBEDDED_FILE_NAME).toAbsolutePath();
  }
}
