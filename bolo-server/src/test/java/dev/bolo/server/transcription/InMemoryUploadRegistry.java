package dev.bolo.server.transcription;

import dev.bolo.server.ledger.LedgerException;
import dev.bolo.server.ledger.StoredUpload;
import dev.bolo.server.ledger.UploadRegistry;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The records of resumable uploads in a map, as the ledger database keeps them (the same
 * compare-and-set rules); a test may make {@link #startTranscription} fail as a database that went
 * away does. Thread safe.
 */
final class InMemoryUploadRegistry implements UploadRegistry {

  private final Map<String, StoredUpload> uploads = new ConcurrentHashMap<>();
  private volatile boolean startFails;

  /** Makes every later {@link #startTranscription} throw, as a database that went away does. */
  void failStartingTranscriptions() {
    startFails = true;
  }

  /** Stores {@code upload} as it is, as an earlier run of the gateway left it. */
  void put(StoredUpload upload) {
    uploads.put(upload.id(), upload);
  }

  @Override
  public synchronized boolean create(StoredUpload upload, int maxUnfinished) {
    if (countUnfinished(upload.device(), upload.createdAt()) >= maxUnfinished) {
      return false;
    }
    uploads.put(upload.id(), upload);
    return true;
  }

  @Override
  public Optional<StoredUpload> find(String id) {
    return Optional.ofNullable(uploads.get(id));
  }

  @Override
  public int countUnfinished(String device, Instant now) {
    return select(
            u ->
                u.device().equals(device)
                    && (u.state() == StoredUpload.State.OPEN
                        || u.state() == StoredUpload.State.TRANSCRIBING)
                    && u.expiresAt().isAfter(now))
        .size();
  }

  @Override
  public List<StoredUpload> open(String device, Instant now) {
    return select(
        u ->
            u.device().equals(device)
                && u.state() == StoredUpload.State.OPEN
                && u.expiresAt().isAfter(now));
  }

  @Override
  public boolean advance(String id, long expectedOffset, long newOffset, long length) {
    return change(
        id,
        u -> u.state() == StoredUpload.State.OPEN && u.offset() == expectedOffset,
        u -> u.withOffset(newOffset, length));
  }

  @Override
  public boolean startTranscription(String id, String audioSha256) {
    if (startFails) {
      throw new LedgerException(
          "start transcription", new java.sql.SQLException("the ledger database went away"));
    }
    return change(
        id,
        u -> u.state() == StoredUpload.State.OPEN,
        u -> with(u, StoredUpload.State.TRANSCRIBING, audioSha256, null));
  }

  @Override
  public void finish(String id, StoredUpload.State state, String outcome) {
    change(id, u -> true, u -> with(u, state, u.audioSha256(), outcome));
  }

  @Override
  public boolean delete(String id) {
    return uploads.remove(id) != null;
  }

  @Override
  public List<StoredUpload> expired(String instanceId, Instant now) {
    return select(u -> u.instanceId().equals(instanceId) && !u.expiresAt().isAfter(now));
  }

  @Override
  public List<StoredUpload> live(String instanceId, Instant now) {
    return select(u -> u.instanceId().equals(instanceId) && u.expiresAt().isAfter(now));
  }

  private List<StoredUpload> select(Predicate<StoredUpload> which) {
    return uploads.values().stream()
        .filter(which)
        .sorted(Comparator.comparing(StoredUpload::createdAt).thenComparing(StoredUpload::id))
        .toList();
  }

  private boolean change(
      String id, Predicate<StoredUpload> when, java.util.function.UnaryOperator<StoredUpload> how) {
    boolean[] changed = {false};
    uploads.computeIfPresent(
        id,
        (key, u) -> {
          if (!when.test(u)) {
            return u;
          }
          changed[0] = true;
          return how.apply(u);
        });
    return changed[0];
  }

  static StoredUpload with(
      StoredUpload u, StoredUpload.State state, @Nullable String sha, @Nullable String outcome) {
    return new StoredUpload(
        u.id(),
        u.device(),
        u.instanceId(),
        u.protocol(),
        u.length(),
        u.offset(),
        u.fields(),
        u.declaredSha256(),
        u.idempotencyKey(),
        state,
        sha,
        outcome,
        u.createdAt(),
        u.expiresAt());
  }
}
