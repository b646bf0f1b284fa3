package dev.bolo.server.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.testing.ThreadDump;
import dev.bolo.testkit.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.sqlite.SQLiteConfig;

/** The ledger contract on the embedded SQLite file under the data dir. */
class SqliteLedgerTest extends LedgerContractTest {

  @Override
  @Nullable String freshDatabaseUrl() {
    return null;
  }

  @Test
  void aNewDataDirectoryAndLedgerAreReadableByTheGatewaysUserOnly() throws Exception {
    Path fresh = dataDir.resolve("fresh");
    DurableLedger ledger = open(LedgerConfig.embedded(fresh));
    ledger.add(new Device("phone"));

    assertThat(mode(fresh)).isEqualTo("rwx------");
    Path db = fresh.resolve(LedgerConfig.EMBEDDED_FILE_NAME);
    assertThat(mode(db)).isEqualTo("rw-------");
    assertThat(Files.exists(walOf(db))).isTrue();
    assertThat(mode(walOf(db))).isEqualTo("rw-------");
  }

  @Test
  void looserModesLeftByAnOperatorAreFixedAtStart() throws Exception {
    open(config).add(new Device("phone"));
    closeLedgers();
    Path db = dataDir.resolve(LedgerConfig.EMBEDDED_FILE_NAME);
    Files.setPosixFilePermissions(dataDir, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.setPosixFilePermissions(db, PosixFilePermissions.fromString("rw-r--r--"));
    Path shm = db.resolveSibling(db.getFileName() + "-shm");
    Files.writeString(walOf(db), "", java.nio.file.StandardOpenOption.CREATE);
    Files.setPosixFilePermissions(walOf(db), PosixFilePermissions.fromString("rw-rw-rw-"));

    DurableLedger reopened = open(config);

    assertThat(mode(dataDir)).isEqualTo("rwx------");
    assertThat(mode(db)).isEqualTo("rw-------");
    assertThat(mode(walOf(db))).isEqualTo("rw-------");
    if (Files.exists(shm)) {
      assertThat(mode(shm)).isEqualTo("rw-------");
    }
    assertThat(reopened.devices()).extracting(DeviceInfo::name).containsExactly("phone");
  }

  @Test
  void aTokenIsLookedUpWithoutWaitingForTheWriter() throws Exception {
    DurableLedger ledger = open(config);
    String token = tokenOf(ledger.add(new Device("phone")));
    Path db = dataDir.resolve(LedgerConfig.EMBEDDED_FILE_NAME);
    SQLiteConfig immediate = new SQLiteConfig();
    immediate.setTransactionMode(SQLiteConfig.TransactionMode.IMMEDIATE);
    try (Connection other = immediate.createConnection("jdbc:sqlite:" + db)) {
      // Another process (the CLI, say) holds the write lock...
      other.setAutoCommit(false);
      try (Statement statement = other.createStatement()) {
        statement.execute("DELETE FROM quota_holds WHERE 1 = 0");
      }
      // ...so the gateway's writer waits for it on its read-write connection, inside SQLite.
      Thread writer = Thread.ofVirtual().start(() -> ledger.add(new Device("tablet")));
      Await.until(
          () -> addingInSqlite() == 1, () -> "the device's insert is not waiting inside SQLite");

      Optional<Device> found = ledger.authenticate(token);
      // Found while the writer still waited for the lock: the lookup did not wait for it.
      assertThat(writer.isAlive()).as("the writer still waits").isTrue();
      other.rollback();
      writer.join();

      assertThat(found).contains(new Device("phone"));
    }
  }

  @Test
  void anInMemoryDatabaseAnswersItsLookupsFromItself() {
    // A reader of its own would open another, empty database.
    DurableLedger ledger = open(config.withJdbcUrl("jdbc:sqlite::memory:"));
    String token = tokenOf(ledger.add(new Device("phone")));

    assertThat(ledger.authenticate(token)).contains(new Device("phone"));
    assertThat(LedgerDatabase.isSqliteFile("jdbc:sqlite:file:bench?mode=memory&cache=shared"))
        .isFalse();
    assertThat(LedgerDatabase.isSqliteFile("jdbc:sqlite:/var/lib/bolo/bolo-ledger.db")).isTrue();
  }

  /** Threads adding a device now inside a SQLite call (waiting for its lock, here). */
  private static int addingInSqlite() {
    try {
      return ThreadDump.now().threadsWith("JdbcDeviceAdmin.add", "org.sqlite.core.NativeDB");
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static Path walOf(Path db) {
    return db.resolveSibling(db.getFileName() + "-wal");
  }

  private static String mode(Path path) throws java.io.IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
  }
}
