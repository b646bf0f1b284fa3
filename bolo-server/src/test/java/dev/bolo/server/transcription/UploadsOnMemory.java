package dev.bolo.server.transcription;

import dev.bolo.server.engine.EngineRequest;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.engine.SpeechEngine;
import dev.bolo.server.engine.Task;
import dev.bolo.server.engine.Transcript;
import dev.bolo.server.ledger.Device;
import dev.bolo.server.upload.UploadReader;
import dev.bolo.server.work.KeptTranscript;
import dev.bolo.server.work.WorkKey;
import dev.bolo.server.work.WorkResult;
import dev.bolo.testkit.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Resumable uploads without HTTP or a database: records in an {@link InMemoryUploadRegistry}, bytes
 * in a test's folder, a clock the test moves, and a use case that transcribes every note as {@code
 * "text of <hash>"} and counts its calls. Transcriptions wait in {@link #queued} until the test
 * runs them, so nothing runs behind its back.
 */
final class UploadsOnMemory {

  static final Device ALPHA = new Device("alpha");
  static final Duration TTL = Duration.ofHours(24);
  static final long MAX_BYTES = 1 << 20;
  static final long SPOOL_MAX_BYTES = 4 * MAX_BYTES;

  final InMemoryUploadRegistry registry;
  final MutableClock clock;
  private final Path spool;
  private final Duration lockWait;
  final UploadReader reader;
  final AtomicInteger transcriptions = new AtomicInteger();
  final Queue<Runnable> queued = new ConcurrentLinkedQueue<>();
  final Map<String, KeptTranscript> stored = new ConcurrentHashMap<>();
  final ResumableUploads uploads;

  /** Transcriptions are queued until {@link #runQueued}. */
  UploadsOnMemory(Path spool, Duration lockWait) {
    this(spool, lockWait, null);
  }

  /** Transcriptions run by {@code work}. */
  UploadsOnMemory(Path spool, Duration lockWait, @Nullable Executor work) {
    this(new InMemoryUploadRegistry(), MutableClock.startingNow(), spool, lockWait, work);
  }

  /**
   * This gateway started again on the same records, clock and spool: nothing of what it held in
   * memory (running work, the spool budget, locks) is left.
   */
  UploadsOnMemory restarted() {
    return new UploadsOnMemory(registry, clock, spool, lockWait, null);
  }

  private UploadsOnMemory(
      InMemoryUploadRegistry registry,
      MutableClock clock,
      Path spool,
      Duration lockWait,
      @Nullable Executor work) {
    this.registry = registry;
    this.clock = clock;
    this.spool = spool;
    this.lockWait = lockWait;
    reader =
        new UploadReader(
            MAX_BYTES,
            64 * 1024,
            spool,
            new UploadReader.Bounds(8, 4, SPOOL_MAX_BYTES, 1, Duration.ofSeconds(10)),
            () -> 0L);
    SpeechEngine engine = new NamedEngine();
    NoteSettings settings =
        new NoteSettings(engine, List.of("whisper-1"), dev.bolo.server.engine.ModelAliases.none());
    uploads =
        new ResumableUploads(
            new UploadStore(
                registry,
                SpoolHolds.in(reader.spoolBudget()),
                spool.resolve("resumable"),
                "instance-1",
                clock),
            reader,
            new Intake(Task.TRANSCRIBE, settings, engine),
            new CountingTranscriber(),
            work != null ? work : queued::add,
            clock,
            System::nanoTime,
            TTL,
            2,
            lockWait);
  }

  /** Runs the transcriptions queued so far, in order. */
  int runQueued() {
    int ran = 0;
    for (Runnable next = queued.poll(); next != null; next = queued.poll()) {
      next.run();
      ran++;
    }
    return ran;
  }

  /** The transcript the use case makes of a note with this hash. */
  static String textOf(String sha256) {
    return "text of " + sha256;
  }

  private final class CountingTranscriber implements UploadTranscriber {
    @Override
    public Transcriber.Answer transcribe(Transcriber.Note note) {
      transcriptions.incrementAndGet();
      String sha = note.audio().sha256();
      String fingerprint =
          WorkKey.of(note.device().name(), note.settings(), sha).settingsFingerprint();
      KeptTranscript transcript =
          new KeptTranscript(
              Transcript.plain(textOf(sha)), "stand-in", 1000, true, sha, fingerprint);
      stored.put(sha, transcript);
      return new Transcriber.Answer(new WorkResult.Success(transcript), false, 1000);
    }

    @Override
    public Optional<KeptTranscript> stored(
        Device device, Settings settings, String audioSha256, Duration wait) {
      return Optional.ofNullable(stored.get(audioSha256));
    }

    @Override
    public Optional<WorkProgress> progress(Device device, Settings settings, String audioSha256) {
      // The counting use case transcribes at once: nothing of it is ever part-done.
      return Optional.empty();
    }
  }

  /** An engine that only has a name: the use case above never calls it. */
  private static final class NamedEngine implements SpeechEngine {
    @Override
    public String name() {
      return "stand-in";
    }

    @Override
    public String defaultModel() {
      return "whisper-1";
    }

    @Override
    public EngineResult transcribe(EngineRequest request) {
      throw new UnsupportedOperationException("the counting use case transcribes");
    }
  }
}
