package dev.bolo.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The upload sizes in effect: the configured ones, fitted to the spool budget and the disk. */
class SpoolSizingTest {

  private static final long MIB = 1024 * 1024;
  private static final long GIB = 1024 * MIB;

  @Test
  void onARoomyDiskTheConfiguredSizesStand() {
    SpoolSizing sizing = SpoolSizing.fit(512 * MIB, 4 * GIB, 100 * GIB);
    assertThat(sizing.maxPostBytes()).isEqualTo(512 * MIB);
    assertThat(sizing.spoolMaxBytes()).isEqualTo(4 * GIB);
  }

  @Test
  void aSpoolBudgetSmallerThanTheLargestNoteLimitsTheNote() {
    SpoolSizing sizing = SpoolSizing.fit(512 * MIB, 300 * MIB, 100 * GIB);
    assertThat(sizing.maxPostBytes()).isEqualTo(300 * MIB);
    assertThat(sizing.spoolMaxBytes()).isEqualTo(300 * MIB);
  }

  @Test
  void aDiskWithLessRoomThanTheBudgetLimitsBothTheBudgetAndTheNote() {
    SpoolSizing sizing = SpoolSizing.fit(512 * MIB, 4 * GIB, 200 * MIB);
    assertThat(sizing.spoolMaxBytes()).isEqualTo(200 * MIB);
    assertThat(sizing.maxPostBytes()).isEqualTo(200 * MIB);
    assertThat(sizing.configuredPostBytes()).isEqualTo(512 * MIB);
    assertThat(sizing.configuredSpoolBytes()).isEqualTo(4 * GIB);
  }

  @Test
  void aFullDiskStillStartsWithAOneByteBudget() {
    SpoolSizing sizing = SpoolSizing.fit(512 * MIB, 4 * GIB, 0);
    assertThat(sizing.spoolMaxBytes()).isEqualTo(1);
    assertThat(sizing.maxPostBytes()).isEqualTo(1);
  }

  @Test
  void theRoomCountsWhatTheSpoolAlreadyHolds(@TempDir Path spool) throws Exception {
    long before = SpoolSizing.roomFor(spool);
    Path kept = Files.createDirectories(spool.resolve("resumable")).resolve("upload.part");
    Files.write(kept, new byte[20_000_000]);
    long after = SpoolSizing.roomFor(spool);
    // The file's bytes left the disk's free space and joined the spool's own: the room is about
    // the same (other processes write to the same disk meanwhile, hence the tolerance).
    assertThat(after).isBetween(before - 50 * MIB, before + 50 * MIB);
    assertThat(after).isGreaterThan(Files.getFileStore(spool).getUsableSpace());
  }
}
