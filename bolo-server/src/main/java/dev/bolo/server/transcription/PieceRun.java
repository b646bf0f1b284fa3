package dev.bolo.server.transcription;

import dev.bolo.decode.PauseSplitter;
import dev.bolo.decode.PcmDecoder;
import dev.bolo.decode.Piece;
import dev.bolo.decode.UndecodableAudioException;
import dev.bolo.server.dedup.WorkCoordinator;
import dev.bolo.server.engine.EngineLimits;
import dev.bolo.server.engine.EngineRequest;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.engine.SpeechEngine;
import dev.bolo.server.engine.TracedEngine;
import dev.bolo.server.upload.SeekableNote;
import dev.bolo.server.work.KeptTranscript;
import dev.bolo.server.work.Problem;
import dev.bolo.server.work.WorkKey;
import dev.bolo.server.work.WorkResult;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One note sent in pieces: decoded to 16 kHz mono a frame at a time, cut at its pauses by the same
 * {@link PauseSplitter} as the offline engine's, and its stretches of speech gathered into pieces
 * as long as the provider takes, or shorter, down to two minutes, so that a long note keeps twice
 * its calls in flight busy (the pauses between them kept as silence, so a piece's times are the
 * note's from the piece's start). Each piece is written to the spool as 16-bit FLAC and transcribed
 * through the work coordinator under its own key (device, settings, the hash of its samples) while
 * the next is cut, so a piece finished once is replayed, not paid for again.
 *
 * <p>Each piece's text goes to the deltas, and its end to the progress, as soon as it and the
 * pieces before it are done. The first piece that fails fails the note with its failure; the pieces
 * already sent go on and are kept for a resend. Pieces sent side by side are each asked with the
 * client's own prompt, so none waits for another's text; when one piece of a note is sent at a
 * time, each is asked with the end of the text before it as well, as OpenAI advises for a long
 * recording, and its key holds that prompt (the text before it is kept, so a resend asks the same).
 * Not thread safe: one run per note.
 */
final class PieceRun {

  private static final Logger log = LoggerFactory.getLogger(PieceRun.class);

  /** The rate pieces are sent at: what speech models work at, at most 32 kB per second. */
  static final int RATE = 16_000;

  /** Stretches of speech are cut at pauses of 300 ms, or at the quietest point of 30 s. */
  private static final Duration LONGEST_STRETCH = Duration.ofSeconds(30);

  /** Piece calls run on virtual threads of their own: each mostly waits for its provider. */
  private static final Executor PIECE_THREADS =
      task -> Thread.ofVirtual().name("bolo-piece").start(task);

  private final SpeechEngine engine;
  private final WorkCoordinator coordinator;
  private final Room room;
  private final Consumer<EngineResult> called;
  private final EngineRequest request;
  private final Settings pieceSettings;
  private final long maxSamples;
  private final long deadline;
  private final Deque<Running> running = new ArrayDeque<>();
  private final List<PieceStitch.Heard> heard = new ArrayList<>();
  private boolean spoke;

  /**
   * The shortest piece made to use the note's share of parallel calls: shorter ones would add cuts
   * and calls for little gain.
   */
  static final long SHORTEST_SHARED_PIECE_SAMPLES = 120L * RATE;

  /**
   * What the pieces of every note share: how many of one note run at once, the gateway's room for
   * pieces, the folder they wait in, and the ticker their deadline runs on.
   *
   * @param perNote pieces of one note sent at once
   * @param gatewayPieces one permit per piece of any note at work
   * @param folder where pieces wait for their call, in the spool
   */
  record Room(int perNote, Semaphore gatewayPieces, Path folder, LongSupplier ticker) {}

  /**
   * @param engine where each piece is sent
   * @param coordinator runs each piece once under its own key
   * @param called told of each provider call made for a piece
   * @param limits the most one request to the engine may carry
   * @param request the note, its device and its length as the gateway counted it
   */
  PieceRun(
      SpeechEngine engine,
      WorkCoordinator coordinator,
      Room room,
      Consumer<EngineResult> called,
      EngineLimits limits,
      EngineRequest request) {
    this.engine = engine;
    this.coordinator = coordinator;
    this.room = room;
    this.called = called;
    this.request = request;
    long noteMillis = request.noteMillis();
    this.pieceSettings = PieceStitch.pieceSettings(request.settings());
    // As many samples as fit the request as 16-bit WAV, less 2 %: FLAC's frame headers on audio
    // it cannot compress add under 1 %, and speech takes about half.
    long byBytes = (limits.maxRequestBytes() - EngineLimits.PROVIDER_FORM_BYTES) / 2 * 98 / 100;
    long bySeconds =
        limits.maxSeconds() > Long.MAX_VALUE / RATE ? Long.MAX_VALUE : limits.maxSeconds() * RATE;
    // Within the limits, pieces short enough that the note's calls in flight share it twice over:
    // the last piece to come back is then short, which is what the note waits for.
    long shared =
        Math.max(
            SHORTEST_SHARED_PIECE_SAMPLES, noteMillis * RATE / 1000 / (2L * room.perNote()) + 1);
    this.maxSamples = Math.min(shared, Math.min(byBytes, bySeconds));
    this.deadline = room.ticker().getAsLong() + request.timeout().toNanos();
  }

  EngineResult transcribe() {
    PieceFile building = null;
    try (SeekableNote note = request.audio().openSeekable();
        PcmDecoder decoder = PcmDecoder.open(note, RATE)) {
      PauseSplitter splitter = new PauseSplitter(decoder, stretchLimits());
      long buildingStart = 0;
      long buildingEnd = 0;
      Piece stretch;
      while ((stretch = splitter.next()) != null) {
        long start = stretch.startSample();
        int length = stretch.samples().length;
        if (building != null && start + length - buildingStart > maxSamples) {
          EngineResult.Failure failed = send(building);
          building = null;
          if (failed != null) {
            return failed;
          }
        }
        if (building == null) {
          EngineResult.Failure failed = makeRoom();
          if (failed != null) {
            return failed;
          }
          building = newPiece(start);
          buildingStart = start;
        } else {
          building.appendSilence(start - buildingEnd);
        }
        building.append(stretch.samples(), length);
        buildingEnd = start + length;
      }
      if (building != null) {
        EngineResult.Failure failed = send(building);
        building = null;
        if (failed != null) {
          return failed;
        }
      }
      while (!running.isEmpty()) {
        EngineResult.Failure failed = collect(running.removeFirst());
        if (failed != null) {
          return failed;
        }
      }
      long noteMillis = splitter.samplesRead() * 1000 / RATE;
      Span.current().setAttribute(TracedEngine.PIECE_COUNT, heard.size());
      return PieceStitch.stitch(heard, noteMillis, request.settings());
    } catch (UndecodableAudioException e) {
      // The client hears Bolo's sentence; FFmpeg's own words are for the operator.
      log.info("a note cannot be cut into pieces: {} [{}]", e.sentence(), e.detail());
      return new EngineResult.InvalidAudio(e.sentence());
    } catch (IOException e) {
      // The upload or the spool could not be read or written: the gateway's trouble, not the
      // note's.
      log.error("cannot cut a note into pieces", e);
      return new EngineResult.Unavailable(
          "the gateway cannot cut this note into pieces now", Duration.ofSeconds(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new EngineResult.Unavailable("interrupted while the note's pieces ran", null);
    } finally {
      if (building != null) {
        closeQuietly(building);
        room.gatewayPieces().release();
      }
    }
  }

  /** A new piece starting at {@code startSample}; gives its permit back if none can be made. */
  private PieceFile newPiece(long startSample) throws IOException {
    try {
      return PieceFile.create(room.folder(), RATE, startSample * 1000 / RATE);
    } catch (IOException | RuntimeException e) {
      room.gatewayPieces().release();
      throw e;
    }
  }

  private PauseSplitter.Limits stretchLimits() {
    long seconds = Math.min(LONGEST_STRETCH.toSeconds(), maxSamples / RATE);
    return new PauseSplitter.Limits(
        Duration.ofSeconds(Math.max(1, seconds)), Duration.ofMillis(300), Duration.ofMillis(200));
  }

  /**
   * Waits until this note may send one more piece and the gateway has room for it; a piece taken
   * from the front on the way is collected in order. Holds one of the gateway's permits on success.
   */
  private EngineResult.@Nullable Failure makeRoom() throws InterruptedException {
    if (running.size() >= room.perNote()) {
      EngineResult.Failure failed = collect(running.removeFirst());
      if (failed != null) {
        return failed;
      }
    }
    if (!room.gatewayPieces().tryAcquire(remainingNanos(), TimeUnit.NANOSECONDS)) {
      return new EngineResult.TimedOut(
          "the note's pieces waited for the gateway's other pieces past its deadline");
    }
    return null;
  }

  /** Finishes the piece and starts its call; the call releases its permit and file. */
  private EngineResult.@Nullable Failure send(PieceFile piece) {
    try {
      piece.finish();
    } catch (IOException | RuntimeException e) {
      closeQuietly(piece);
      room.gatewayPieces().release();
      log.error("cannot write a piece of a note to the spool", e);
      return new EngineResult.Unavailable(
          "the gateway cannot write this note's pieces now", Duration.ofSeconds(5));
    }
    int index = heard.size() + running.size();
    // One piece at a time: each follows the text of the one before it, as the model's prompt.
    Settings settings =
        room.perNote() == 1 && !heard.isEmpty()
            ? PieceStitch.following(pieceSettings, heard.getLast().transcript().text())
            : pieceSettings;
    WorkKey key = WorkKey.ofPiece(request.device(), settings, piece.sha256());
    // Within the note's trace: the piece's attempt is a span of the note's work.
    CompletableFuture<WorkResult> outcome =
        CompletableFuture.supplyAsync(
            Context.current().wrapSupplier(() -> serve(key, settings, piece, index)),
            PIECE_THREADS);
    running.add(new Running(outcome, piece));
    return null;
  }

  /** One piece through the coordinator: replayed when kept, joined when running, else run. */
  private WorkResult serve(WorkKey key, Settings settings, PieceFile piece, int index) {
    try {
      long remaining = remainingNanos();
      if (remaining <= 0) {
        return new WorkResult.Refused(Problem.UPSTREAM_TIMEOUT, "the note's deadline passed");
      }
      Duration timeout = Duration.ofNanos(remaining);
      WorkCoordinator.Served served =
          coordinator.serve(
              key,
              timeout.plus(Transcriber.WAIT_MARGIN),
              () -> call(key, settings, piece, index, timeout));
      return served.outcome();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new WorkResult.Refused(Problem.SERVER_UNAVAILABLE, "the gateway is shutting down");
    } finally {
      closeQuietly(piece);
      room.gatewayPieces().release();
    }
  }

  /** The provider call for one piece; its transcript is kept as the piece's work. */
  private WorkResult call(
      WorkKey key, Settings settings, PieceFile piece, int index, Duration timeout) {
    EngineResult result;
    try (Scope attempt = TracedEngine.forPiece(index)) {
      result =
          engine.transcribe(
              new EngineRequest(
                  piece, settings, timeout, request.requestId() + "/piece-" + (index + 1)));
    }
    called.accept(result);
    return switch (result) {
      case EngineResult.Transcribed t ->
          new WorkResult.Success(
              new KeptTranscript(
                  t.transcript(),
                  t.engine() != null ? t.engine() : engine.name(),
                  piece.millis(),
                  true,
                  key.audioSha256(),
                  key.settingsFingerprint(),
                  t.usage(),
                  t.model()));
      case EngineResult.Failure failure -> {
        log.warn("piece {} of a note failed: {}", index + 1, failure);
        yield EngineFailures.refusal(failure);
      }
    };
  }

  /** Waits for the oldest piece and passes its text and end on; its failure is the note's. */
  private EngineResult.@Nullable Failure collect(Running piece) throws InterruptedException {
    WorkResult outcome;
    try {
      outcome = piece.outcome().get(Math.max(0, remainingNanos()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      return new EngineResult.TimedOut("the note's pieces took longer than " + request.timeout());
    } catch (ExecutionException e) {
      log.error("a piece of a note failed unexpectedly", e.getCause());
      return new EngineResult.Failed("internal error; the note was not transcribed");
    }
    return switch (outcome) {
      case WorkResult.Refused refused -> EngineFailures.failure(refused);
      case WorkResult.Success success -> {
        KeptTranscript transcript = success.transcript();
        heard.add(
            new PieceStitch.Heard(
                piece.file().startMillis(), piece.file().endMillis(), transcript.transcript()));
        String text = transcript.text().strip();
        if (!text.isEmpty()) {
          request.deltas().accept(spoke ? " " + text : text);
          spoke = true;
        }
        request.progress().doneUpTo(piece.file().endMillis());
        yield null;
      }
    };
  }

  private long remainingNanos() {
    return deadline - room.ticker().getAsLong();
  }

  private static void closeQuietly(PieceFile piece) {
    try {
      piece.close();
    } catch (IOException e) {
      log.warn("cannot delete a piece's spool file: {}", e.toString());
    }
  }

  /** A piece being transcribed, and the file it was cut into. */
  private record Running(CompletableFuture<WorkResult> outcome, PieceFile file) {}
}
