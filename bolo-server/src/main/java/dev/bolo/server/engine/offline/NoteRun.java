package dev.bolo.server.engine.offline;

import dev.bolo.decode.MonoSamples;
import dev.bolo.decode.PauseSplitter;
import dev.bolo.decode.PcmDecoder;
import dev.bolo.decode.Piece;
import dev.bolo.decode.UndecodableAudioException;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.NoteProgress;
import dev.bolo.server.engine.TranscriptDeltas;
import dev.bolo.server.upload.SeekableNote;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One note through the offline engine, on the caller's thread: decoded a frame at a time, cut at
 * its pauses into utterances of at most 30 s, each recognised on the {@link RecognizerPool} while
 * the next is cut, and stitched in order with their real times. A long note keeps every recogniser
 * busy when nothing else waits; it never holds more than one piece per recogniser plus the one
 * being cut, whatever its length. Each piece's text goes to the deltas as soon as it and the pieces
 * before it are done.
 *
 * <p>At the deadline the note is abandoned: its queued pieces are not recognised and the running
 * ones stop within a frame. Not thread safe: one run per note.
 */
final class NoteRun {

  private static final Logger log = LoggerFactory.getLogger(NoteRun.class);

  private final RecognizerPool pool;
  private final TranscriptDeltas deltas;
  private final NoteProgress progress;
  private final LongSupplier ticker;
  private final long deadline;
  private final Duration timeout;
  private final AtomicBoolean abandoned = new AtomicBoolean();
  private final Deque<Running> running = new ArrayDeque<>();
  private final List<Utterance> heard = new ArrayList<>();
  private boolean spoke;

  NoteRun(
      RecognizerPool pool,
      Duration timeout,
      TranscriptDeltas deltas,
      NoteProgress progress,
      LongSupplier ticker) {
    this.pool = pool;
    this.deltas = deltas;
    this.progress = progress;
    this.ticker = ticker;
    this.timeout = timeout;
    this.deadline = ticker.getAsLong() + timeout.toNanos();
  }

  /** Transcribes the note; the caller keeps closing it. */
  EngineResult transcribe(SeekableNote note) throws InterruptedException {
    try (PcmDecoder decoder = PcmDecoder.open(note, NoteSamples.RATE)) {
      PauseSplitter splitter =
          new PauseSplitter(new UntilDeadline(decoder), PauseSplitter.Limits.utterances());
      Piece piece;
      while ((piece = splitter.next()) != null) {
        // One piece per recogniser in flight: more would only wait in memory.
        if (running.size() >= pool.size()) {
          collect(running.removeFirst());
        }
        running.add(new Running(pool.submit(piece, abandoned::get), piece.endMillis()));
      }
      while (!running.isEmpty()) {
        collect(running.removeFirst());
      }
      long durationMs = splitter.samplesRead() * 1000 / NoteSamples.RATE;
      return new EngineResult.Transcribed(Utterance.transcript(heard, durationMs));
    } catch (UndecodableAudioException e) {
      // The client hears Bolo's sentence; FFmpeg's own words are for the operator.
      log.info("a note cannot be decoded: {} [{}]", e.sentence(), e.detail());
      return new EngineResult.InvalidAudio(e.sentence());
    } catch (DeadlinePassed | TimeoutException e) {
      return new EngineResult.TimedOut("offline engine took longer than " + timeout);
    } catch (IOException e) {
      // The upload's bytes could not be read back: logged here, the path kept from the client.
      log.error("cannot read an uploaded note", e);
      return new EngineResult.Failed("cannot read the uploaded audio");
    } catch (RecognizerPool.RecognizerFailure e) {
      return failed(e);
    } catch (RejectedExecutionException e) {
      return new EngineResult.Unavailable("offline engine is shut down", null);
    } finally {
      abandon();
    }
  }

  /** Waits for the oldest piece within the deadline and sends its text and progress on. */
  private void collect(Running piece) throws InterruptedException, TimeoutException {
    List<Utterance> utterances;
    try {
      utterances =
          piece.heard().get(Math.max(0, deadline - ticker.getAsLong()), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RecognizerPool.RecognizerFailure failure) {
        throw failure;
      }
      // Only close() interrupts the pool's threads.
      throw new RejectedExecutionException("offline engine is shut down", e.getCause());
    }
    for (Utterance utterance : utterances) {
      heard.add(utterance);
      deltas.accept(spoke ? " " + utterance.text() : utterance.text());
      spoke = true;
    }
    progress.doneUpTo(piece.endMillis());
  }

  /** A piece being recognised, and where it ends in the note. */
  private record Running(Future<List<Utterance>> heard, long endMillis) {}

  /**
   * An {@link Error} (a full heap, a search too deep) or a bug in one recogniser fails this note
   * only, with a 5xx that names it; the pool has replaced the recogniser, and a resend may succeed.
   */
  private static EngineResult failed(RecognizerPool.RecognizerFailure failure) {
    Throwable cause = failure.getCause();
    log.error("an offline recognizer failed on a note; it was replaced", cause);
    String what =
        cause instanceof OutOfMemoryError
            ? "ran out of memory"
            : "failed (" + (cause == null ? "unknown" : cause.getClass().getSimpleName()) + ")";
    return new EngineResult.Failed("the offline recognizer " + what + " on this note");
  }

  /** Stops the pieces still queued or running; nobody will read them. */
  private void abandon() {
    abandoned.set(true);
    for (Running piece : running) {
      piece.heard().cancel(false);
    }
  }

  /** The deadline passed while the note was still being decoded. */
  private static final class DeadlinePassed extends IOException {
    private static final long serialVersionUID = 1L;

    DeadlinePassed() {
      super("deadline passed");
    }
  }

  /** The decoder's samples, ending in {@link DeadlinePassed} once the note's time is up. */
  private final class UntilDeadline implements MonoSamples {
    private final MonoSamples samples;

    UntilDeadline(MonoSamples samples) {
      this.samples = samples;
    }

    @Override
    public int sampleRate() {
      return samples.sampleRate();
    }

    @Override
    public int read(float[] into, int offset, int length) throws IOException {
      if (ticker.getAsLong() - deadline > 0) {
        throw new DeadlinePassed();
      }
      return samples.read(into, offset, length);
    }
  }
}
