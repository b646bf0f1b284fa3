package dev.bolo.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.UUID;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This process's lasting identity on a data directory: the first of {@code instances/slot-N} that
 * no live process holds. A slot keeps its id across restarts, and the operating system releases its
 * lock when the process dies however it dies, so a gateway restarted after {@code kill -9} takes
 * back its own slot and knows that the quota holds and spool files carrying it are leftovers, never
 * another live instance's (two live processes never hold one slot).
 *
 * <p>Not thread safe; the composition root owns the one instance and closes it last.
 */
public final class InstanceSlot implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(InstanceSlot.class);

  /** More processes than this on one data directory is a misconfiguration, not a deployment. */
  private static final int MAX_SLOTS = 64;

  private static final Pattern UUID_FORMAT = Pattern.compile("[0-9a-f-]{36}");

  private final int index;
  private final String id;
  private final Path spoolDir;
  private final Path chargeJournal;
  private final FileChannel channel;
  private final FileLock lock;

  private InstanceSlot(
      int index, String id, Path spoolDir, Path chargeJournal, FileChannel channel, FileLock lock) {
    this.index = index;
    this.id = id;
    this.spoolDir = spoolDir;
    this.chargeJournal = chargeJournal;
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Takes the first free slot under {@code dataDir} and empties its spool folder, which only a
   * previous run of this slot can have written.
   *
   * @param spoolRoot where each slot's spool folder lives
   * @throws UncheckedIOException when the data directory cannot be written
   */
  public static InstanceSlot acquire(Path dataDir, Path spoolRoot) {
    // Device names, token hashes, usage and notes in flight live here: the gateway's user only.
    dev.bolo.server.ledger.PrivateFiles.directory(dataDir);
    Path slots = dataDir.resolve("instances");
    try {
      Files.createDirectories(slots);
      for (int index = 0; index < MAX_SLOTS; index++) {
        Path lockFile = slots.resolve("slot-" + index + ".lock");
        FileChannel channel =
            FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock = tryLock(channel);
        if (lock == null) {
          channel.close();
          continue;
        }
        String id = readOrCreateId(slots.resolve("slot-" + index + ".id"));
        Path spoolDir = spoolRoot.resolve("slot-" + index);
        int removed =
            emptySpool(spoolDir)
                + removeUnslottedSpoolFiles(spoolRoot)
                + emptySpoolsOfDeadSlots(slots, spoolRoot, index);
        if (removed > 0) {
          log.warn("deleted {} spool files left by an earlier run that did not finish", removed);
        }
        return new InstanceSlot(
            index, id, spoolDir, slots.resolve("slot-" + index + ".charges"), channel, lock);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot take an instance slot under " + slots, e);
    }
    throw new IllegalStateException(
        "more than " + MAX_SLOTS + " live gateways share the data directory " + dataDir);
  }

  private static @Nullable FileLock tryLock(FileChannel channel) throws IOException {
    try {
      return channel.tryLock();
    } catch (OverlappingFileLockException e) {
      // Held by another gateway in this same JVM (tests run several).
      return null;
    }
  }

  private static String readOrCreateId(Path file) throws IOException {
    if (Files.exists(file)) {
      String id = Files.readString(file, StandardCharsets.US_ASCII).trim();
      if (UUID_FORMAT.matcher(id).matches()) {
        return id;
      }
    }
    String id = UUID.randomUUID().toString();
    Path temp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(temp, id, StandardCharsets.US_ASCII);
    Files.move(temp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    return id;
  }

  private static int emptySpool(Path spoolDir) throws IOException {
    Files.createDirectories(spoolDir);
    int removed = 0;
    try (DirectoryStream<Path> files = Files.newDirectoryStream(spoolDir)) {
      for (Path file : files) {
        if (Files.isRegularFile(file) && Files.deleteIfExists(file)) {
          removed++;
        }
      }
    }
    return removed;
  }

  /**
   * A slot whose lock nobody holds belongs to no live process (a gateway scaled down after a
   * crash): its spool files are leftovers too. Slots held by live processes are left alone.
   */
  private static int emptySpoolsOfDeadSlots(Path slots, Path spoolRoot, int mine)
      throws IOException {
    int removed = 0;
    for (int index = 0; index < MAX_SLOTS; index++) {
      Path lockFile = slots.resolve("slot-" + index + ".lock");
      if (index == mine || !Files.exists(lockFile)) {
        continue;
      }
      try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
        FileLock lock = tryLock(channel);
        if (lock != null) {
          try {
            Path spool = spoolRoot.resolve("slot-" + index);
            if (Files.isDirectory(spool)) {
              removed += emptySpool(spool);
            }
          } finally {
            lock.release();
          }
        }
      }
    }
    return removed;
  }

  /** Spool files of releases that wrote straight into the spool root; no live process does now. */
  private static int removeUnslottedSpoolFiles(Path spoolRoot) throws IOException {
    int removed = 0;
    try (DirectoryStream<Path> files = Files.newDirectoryStream(spoolRoot, "upload-*.audio")) {
      for (Path file : files) {
        if (Files.isRegularFile(file) && Files.deleteIfExists(file)) {
          removed++;
        }
      }
    }
    return removed;
  }

  /** The slot's number under the data directory. */
  public int index() {
    return index;
  }

  /** The slot's lasting id; quota holds carry it. */
  public String id() {
    return id;
  }

  /** This slot's spool folder, emptied when the slot was taken. */
  public Path spoolDir() {
    return spoolDir;
  }

  /** Where this slot keeps the charges it still owes across a crash. */
  public Path chargeJournal() {
    return chargeJournal;
  }

  /** Releases the slot for the next process. */
  @Override
  public void close() {
    try {
      lock.release();
      channel.close();
    } catch (IOException e) {
      log.warn("could not release instance slot {}: {}", index, e.toString());
    }
  }
}
