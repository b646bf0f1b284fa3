package dev.bolo.server.transcription;

import dev.bolo.server.dedup.DedupStore;
import dev.bolo.server.dedup.DeltaFanOut;
import dev.bolo.server.dedup.IdempotencyCheck;
import dev.bolo.server.dedup.WorkCoordinator;
import dev.bolo.server.dedup.WorkStop;
import dev.bolo.server.engine.EngineRequest;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.LongestNote;
import dev.bolo.server.engine.ModelAliases;
import dev.bolo.server.engine.ResponseFormat;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.engine.SpeechEngine;
import dev.bolo.server.engine.Task;
import dev.bolo.server.engine.TranscriptDeltas;
import dev.bolo.server.engine.UpstreamTimeout;
import dev.bolo.server.ledger.ChargeOutbox;
import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.Ledger;
import dev.bolo.server.ledger.LedgerException;
import dev.bolo.server.ledger.Reservation;
import dev.bolo.server.tracing.NoteSpans;
import dev.bolo.server.upload.SpooledAudio;
import dev.bolo.server.work.KeptTranscript;
import dev.bolo.server.work.Problem;
import dev.bolo.server.work.WorkKey;
import dev.bolo.server.work.WorkResult;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bolo's one use case: transcribe a device's note once, however often it arrives. Ties the work
 * coordinator (de-duplication), the engine and the ledger (quota and usage) together; knows nothing
 * of HTTP. Thread safe.
 */
public final class Transcriber {

  private static final Logger log = LoggerFactory.getLogger(Transcriber.class);

  /**
   * A duplicate waits this much longer than the engine may take, to see the owner's answer; a quota
   * hold lives as long, so it outlives its work by the same margin and no longer.
   */
  public static final Duration WAIT_MARGIN = Duration.ofSeconds(15);

  /** What a phone is told to wait while the ledger cannot take a reservation. */
  private static final Duration LEDGER_RETRY_AFTER = Duration.ofSeconds(5);

  private final SpeechEngine engine;
  private final WorkCoordinator coordinator;
  private final LongSupplier ticker;
  private final DedupStore store;
  private final Ledger ledger;
  private final ChargeOutbox charges;
  private final UpstreamTimeout upstreamTimeout;
  private final List<String> allowedModels;
  private final Clock clock;
  private final TranscriptionMeters meters;
  private final NoteSettings noteSettings;
  private final AnswerRecords usage;

  /** How far the work running on this instance has got, for lookups. */
  private final ProgressBoard progress = new ProgressBoard();

  /** Passes the text of running work to every copy streaming it on this instance. */
  private final DeltaFanOut live = new DeltaFanOut();

  /**
   * @param engine the engine notes go to, with long notes' pieces around it ({@link NotePieces})
   * @param ticker elapsed nanoseconds, for the engine's call times
   */
  public Transcriber(
      SpeechEngine engine,
      WorkCoordinator coordinator,
      LongSupplier ticker,
      DedupStore store,
      Ledger ledger,
      ChargeOutbox charges,
      UpstreamTimeout upstreamTimeout,
      List<String> allowedModels,
      ModelAliases modelAliases,
      Clock clock,
      MeterRegistry metrics) {
    this.engine = Objects.requireNonNull(engine, "engine");
    this.coordinator = Objects.requireNonNull(coordinator, "coordinator");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.store = Objects.requireNonNull(store, "store");
    this.ledger = Objects.requireNonNull(ledger, "ledger");
    this.charges = Objects.requireNonNull(charges, "charges");
    this.upstreamTimeout = Objects.requireNonNull(upstreamTimeout, "upstreamTimeout");
    this.allowedModels =
        allowedModels.isEmpty() ? List.of(engine.defaultModel()) : List.copyOf(allowedModels);
    this.clock = Objects.requireNonNull(clock, "clock");
    this.meters = new TranscriptionMeters(Objects.requireNonNull(metrics, "metrics"));
    this.noteSettings = new NoteSettings(engine, this.allowedModels, modelAliases);
    this.usage = new AnswerRecords(engine, ledger, clock, meters);
  }

  /** The engine in use. */
  public SpeechEngine engine() {
    return engine;
  }

  /** Where notes to transcribe in the language spoken come in. */
  public Intake transcriptions() {
    return new Intake(Task.TRANSCRIBE, noteSettings, engine);
  }

  /** Where notes to translate into English come in. */
  public Intake translations() {
    return new Intake(Task.TRANSLATE, noteSettings, engine);
  }

  /** Lookups of this device's finished work, on the same store and ledger as the uploads. */
  public NoteLookup lookups() {
    return new NoteLookup(noteSettings, store, ledger, clock, meters, progress);
  }

  /** The rule that makes canonical settings of a note's fields, shared by every way in. */
  NoteSettings noteSettings() {
    return noteSettings;
  }

  /** The models a device may ask for; the engine's default model is always among them. */
  public List<String> allowedModels() {
    return allowedModels;
  }

  /** Other names a device may ask for those models by. */
  public ModelAliases modelAliases() {
    return noteSettings.aliases();
  }

  /**
   * One upload of a note.
   *
   * @param device the authenticated device
   * @param audio the note; this call takes its own reference for work that outlives the request
   * @param settings canonical settings
   * @param claimedDurationMs the client's {@code X-Bolo-Audio-Duration-Ms}, if sent
   * @param idempotencyKey the client's {@code Idempotency-Key}, if sent
   * @param requestId the client's label, for logs and usage only
   */
  public record Note(
      Device device,
      SpooledAudio audio,
      Settings settings,
      OptionalLong claimedDurationMs,
      @Nullable String idempotencyKey,
      String requestId) {

    /** The shape the client asked its answer in. */
    public ResponseFormat responseFormat() {
      return settings.responseFormat();
    }

    /** The same note, asked of the engine with {@code work}. */
    Note asking(Settings work) {
      return new Note(device, audio, work, claimedDurationMs, idempotencyKey, requestId);
    }
  }

  /**
   * How a note was answered.
   *
   * @param outcome the transcript, as kept (rendered in the format asked by {@link
   *     dev.bolo.server.engine.Renditions} when it is written), or the refusal
   * @param replayed true when the answer came from earlier or in-flight work
   * @param durationMs the note's length used for quota and timeouts
   */
  public record Answer(WorkResult outcome, boolean replayed, long durationMs) {}

  /**
   * Transcribes or replays; never throws for an expected failure.
   *
   * @throws InterruptedException if the request thread is interrupted; shared work goes on
   */
  public Answer transcribe(Note note) throws InterruptedException {
    return transcribe(note, TranscriptDeltas.none(), joined -> {});
  }

  /** Like {@link #transcribe(Note)} for a job, withdrawn once it is cancelled (see serveLater). */
  Answer transcribe(Note note, CompletableFuture<?> withdrawn) throws InterruptedException {
    Note work = note.asking(noteSettings.work(note.settings()));
    return awaited(answer(work, CountedLength.of(note), note.settings(), withdrawn));
  }

  /**
   * Transcribes or replays like {@link #transcribe(Note)} without holding the caller's thread while
   * the work runs. The answer completes the future on a thread of its own (see {@link
   * WorkCoordinator#serveLater}), or at once when the note is refused before any work (too long, a
   * reused Idempotency-Key); it completes exceptionally only for a bug.
   */
  public CompletableFuture<Answer> transcribeLater(Note note) {
    Note work = note.asking(noteSettings.work(note.settings()));
    return answer(work, CountedLength.of(note), note.settings(), new CompletableFuture<>());
  }

  /**
   * Transcribes or replays like {@link #transcribe(Note)}, passing the text to {@code deltas} as it
   * arrives when the work (this call's own, or running work it joins on this instance) streams. A
   * call that joins mid-way first receives the text so far as one piece. {@code deltas} must not
   * block.
   *
   * @param joining told, before any piece, whether the call joins work already running here (then
   *     its answer will be a replay)
   * @throws InterruptedException if the request thread is interrupted; shared work goes on
   */
  public Answer transcribe(Note note, TranscriptDeltas deltas, Consumer<Boolean> joining)
      throws InterruptedException {
    CountedLength length = CountedLength.of(note);
    // The engine is asked, and the work keyed, by what it is asked; the answer is then rendered.
    Note work = note.asking(noteSettings.work(note.settings()));
    WorkKey key = WorkKey.of(note.device().name(), work.settings(), note.audio().sha256());
    try (DeltaFanOut.Subscription subscription =
        deltas instanceof TranscriptDeltas.Ignored ? null : live.subscribe(key, deltas)) {
      joining.accept(subscription != null && subscription.joinedRunningWork());
      return awaited(answer(work, length, note.settings(), new CompletableFuture<>()));
    }
  }

  private static Answer awaited(CompletableFuture<Answer> answer) throws InterruptedException {
    try {
      return answer.get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException bug ? bug : new IllegalStateException(e);
    }
  }

  /**
   * @param sentSettings the settings as sent, before the engine's defaults: an Idempotency-Key
   *     names the request as sent, format included, as it always did
   */
  private CompletableFuture<Answer> answer(
      Note note, CountedLength length, Settings sentSettings, CompletableFuture<?> withdrawn) {
    WorkKey key = WorkKey.of(note.device().name(), note.settings(), note.audio().sha256());
    WorkKey sent = WorkKey.of(note.device().name(), sentSettings, note.audio().sha256());
    // Refused before any work: a note the engine cannot finish in time would only hold it, and an
    // unbounded one exhausts the heap while it is decoded.
    LongestNote longest = engine.longestNote(note.settings().model());
    if (!longest.admits(length.millis())) {
      return refuseBeforeWork(
          note,
          key,
          length,
          new WorkResult.Refused(Problem.AUDIO_TOO_LONG, longest.refusal(length.millis())));
    }
    if (note.idempotencyKey() != null
        && store.bindIdempotencyKey(note.device().name(), note.idempotencyKey(), sent)
            == IdempotencyCheck.OTHER_WORK) {
      return refuseBeforeWork(
          note,
          key,
          length,
          new WorkResult.Refused(
              Problem.IDEMPOTENCY_KEY_REUSED,
              "this Idempotency-Key was used for other audio or settings; use a new key per note"));
    }
    Duration timeout = upstreamTimeout.timeoutFor(OptionalLong.of(length.millis()));
    // The work holds its own reference while it runs (see runOnce); this one lasts the wait.
    SpooledAudio forWork = note.audio().retain();
    CompletableFuture<WorkCoordinator.Served> served;
    Span resolving = NoteSpans.resolving(key);
    try (Scope scope = NoteSpans.enter(resolving)) {
      served =
          coordinator.serveLater(
              key,
              timeout.plus(WAIT_MARGIN),
              stop -> runOnce(note, forWork, key, length, timeout, stop),
              withdrawn);
    } catch (RuntimeException | Error e) {
      forWork.close();
      resolving.end();
      throw e;
    }
    return served
        .whenComplete(
            (outcome, failure) -> {
              forWork.close();
              NoteSpans.resolved(resolving, outcome == null ? null : outcome.replay());
            })
        .thenApply(outcome -> usage.record(note, key, length, outcome));
  }

  /** Answers a refusal made before any work ran: nothing was shared, replayed or charged. */
  private CompletableFuture<Answer> refuseBeforeWork(
      Note note, WorkKey key, CountedLength length, WorkResult.Refused refusal) {
    return CompletableFuture.completedFuture(
        usage.record(note, key, length, new WorkCoordinator.Served(refusal, false)));
  }

  private WorkResult runOnce(
      Note note,
      SpooledAudio audio,
      WorkKey key,
      CountedLength length,
      Duration timeout,
      WorkStop stop) {
    try (SpooledAudio held = audio.retain();
        DeltaFanOut.Publication deltas = live.publish(key)) {
      Reservation reservation;
      try {
        reservation =
            ledger.reserve(
                note.device(), key.asString(), length.millis(), timeout.plus(WAIT_MARGIN));
      } catch (LedgerException e) {
        // The gateway's own fault: the phone must resend, not drop the note.
        log.warn("cannot reserve quota: {}", e.getMessage());
        return new WorkResult.Refused(
            Problem.SERVER_UNAVAILABLE,
            "the device ledger is unavailable; resend shortly",
            LEDGER_RETRY_AFTER);
      }
      Reservation.Granted granted;
      switch (reservation) {
        case Reservation.Exhausted exhausted -> {
          return QuotaRefusals.of(exhausted, length);
        }
        case Reservation.Held busy -> {
          return QuotaRefusals.of(busy);
        }
        case Reservation.Granted g -> granted = g;
      }
      // On the gateway's ticker, as every other elapsed time of the work.
      long callStarted = ticker.getAsLong();
      EngineResult result;
      try {
        // Whole when the provider takes it in one request, else in pieces (PROTOCOL.md rule 11);
        // stopped, and so released below, once every waiter withdrew.
        EngineRequest request =
            new EngineRequest(
                held,
                note.settings(),
                timeout,
                note.requestId(),
                deltas,
                progress.track(key, length.millis()),
                note.device().name(),
                length.millis());
        result =
            stop.during(
                () -> engine.transcribe(request),
                () -> new EngineResult.Unavailable("the work was withdrawn", null));
      } catch (RuntimeException | Error bug) {
        // An engine bug must not keep the device's seconds held until the hold expires.
        releaseQuietly(granted);
        throw bug;
      } finally {
        progress.forget(key);
      }
      meters.upstreamCall(engine.name(), result, ticker.getAsLong() - callStarted);
      return switch (result) {
        case EngineResult.Transcribed t -> {
          CountedLength charged = length.chargedFor(t.reportedDurationMs());
          // The transcript is paid for at the provider: answer it whatever the ledger does now.
          charges.charge(granted, charged.millis());
          NoteSpans.charged(charged.millis());
          yield new WorkResult.Success(
              new KeptTranscript(
                  t.transcript(),
                  t.engine() != null ? t.engine() : engine.name(),
                  charged.millis(),
                  charged.measured(),
                  key.audioSha256(),
                  key.settingsFingerprint(),
                  t.usage(),
                  t.model()));
        }
        case EngineResult.Failure failure -> {
          releaseQuietly(granted);
          log.warn("engine {} failed: {}", engine.name(), failure);
          yield EngineFailures.refusal(failure);
        }
      };
    }
  }

  /** A hold that cannot be released now expires at its work's deadline: nothing more to do. */
  private void releaseQuietly(Reservation.Granted granted) {
    try {
      ledger.release(granted);
    } catch (LedgerException e) {
      log.warn("could not release quota hold {}: {}", granted.id(), e.getMessage());
    }
  }
}
