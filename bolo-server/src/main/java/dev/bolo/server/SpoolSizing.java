package dev.bolo.server;

import dev.bolo.server.upload.NoteSizes;
import dev.bolo.server.upload.SpoolBudget;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The upload sizes in effect, fitted to the disk the spool is on at start: the spool budget is at
 * most the room there is for it (what is free plus what the spool holds already, the resumable
 * uploads kept across a restart), and no note may be larger than that budget, since a note is read
 * into the spool. Without the fit, a few long notes would fill the disk (and the ledger beside it)
 * before the budget ever refused one.
 *
 * @param maxPostBytes the largest note a POST takes: {@code BOLO_MAX_UPLOAD_BYTES}, at most the
 *     spool budget
 * @param spoolMaxBytes the spool budget: {@code BOLO_SPOOL_MAX_BYTES}, at most the disk's room; a
 *     quarter of it is the largest resumable upload
 * @param configuredPostBytes {@code BOLO_MAX_UPLOAD_BYTES} as configured
 * @param configuredSpoolBytes {@code BOLO_SPOOL_MAX_BYTES} as configured
 */
record SpoolSizing(
    long maxPostBytes, long spoolMaxBytes, long configuredPostBytes, long configuredSpoolBytes) {

  private static final Logger log = LoggerFactory.getLogger(SpoolSizing.class);

  SpoolSizing {
    if (maxPostBytes < 1 || spoolMaxBytes < 1 || maxPostBytes > spoolMaxBytes) {
      throw new IllegalArgumentException(
          "need 1 <= maxPostBytes <= spoolMaxBytes: " + maxPostBytes + ", " + spoolMaxBytes);
    }
  }

  /**
   * The sizes in effect for the configured ones on a disk with {@code roomBytes} for the spool.
   *
   * @param roomBytes what the spool may take on its disk: the free bytes plus what it holds already
   */
  static SpoolSizing fit(long maxUploadBytes, long spoolMaxBytes, long roomBytes) {
    // Never below one byte: a full disk refuses every spooled note with 503, not the start.
    long spool = Math.max(1, Math.min(spoolMaxBytes, roomBytes));
    return new SpoolSizing(Math.min(maxUploadBytes, spool), spool, maxUploadBytes, spoolMaxBytes);
  }

  /**
   * The room for the spool in {@code spoolDir} (which exists): its disk's free bytes and its own.
   */
  static long roomFor(Path spoolDir) {
    try {
      // statvfs(2) on the directory itself: Files.getFileStore looks the path up in the mount
      // table, which a container started with its own root (unshare --root) may not have.
      return saturatingAdd(spoolDir.toFile().getUsableSpace(), bytesUnder(spoolDir));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the free space of " + spoolDir, e);
    }
  }

  private static long bytesUnder(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(SpoolSizing::sizeOf).sum();
    }
  }

  private static long sizeOf(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      // Deleted while walked: it holds nothing any more.
      return 0;
    }
  }

  private static long saturatingAdd(long a, long b) {
    long sum = a + b;
    return sum < 0 ? Long.MAX_VALUE : sum;
  }

  /** Says at start what the sizes are, and warns where the disk made them smaller than asked. */
  void log(Path spoolDir) {
    if (spoolMaxBytes < configuredSpoolBytes) {
      log.warn(
          "the disk of {} has less room than BOLO_SPOOL_MAX_BYTES ({} bytes): the spool budget is "
              + "{} bytes",
          spoolDir,
          configuredSpoolBytes,
          spoolMaxBytes);
    }
    if (maxPostBytes < configuredPostBytes) {
      log.warn(
          "BOLO_MAX_UPLOAD_BYTES is {} but the spool budget is {} bytes: notes up to {} are taken",
          configuredPostBytes,
          spoolMaxBytes,
          NoteSizes.describe(maxPostBytes));
    }
    log.info(
        "notes up to {} by POST, up to {} by resumable upload (/v1/uploads); spool budget {} bytes",
        NoteSizes.describe(maxPostBytes),
        NoteSizes.describe(SpoolBudget.deviceShareOf(spoolMaxBytes)),
        spoolMaxBytes);
  }
}
