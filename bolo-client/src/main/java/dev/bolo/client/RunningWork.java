package dev.bolo.client;

import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import okhttp3.Request;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;

/**
 * Waits for a note's work that the gateway reports still running. A 202 {@code running} from the
 * lookup or from {@code GET /v1/uploads/{id}/transcription} is progress, not a failed attempt
 * (PROTOCOL.md "Resends without the audio"): the same question is asked again within the attempt,
 * each time holding at the gateway for its {@code wait}, until a final answer, a link failure
 * (which the resend policy judges as any other), a cancel, or the end of the wait.
 *
 * <p>The wait ends, and the note with {@link Outcome.GaveUp} ({@code HTTP 202 running}) without a
 * resend, when either:
 *
 * <ul>
 *   <li>the note has waited its {@link RunningWorkLimits#waitFor limit} in all since the first
 *       answer that said running (by default 120 s plus the note's length, at most 15 min: the
 *       gateway's own deadline for the note's engine call, after which its work has failed), or
 *   <li>the gateway reports {@code seconds_done} and it has not grown in {@link #STALLED_ANSWERS}
 *       answers in a row spanning at least {@link RunningWorkLimits#stalledAfter()}.
 * </ul>
 *
 * <p>Between two answers it pauses the answer's {@code Retry-After} (the gateway sends 1 s),
 * clamped to [{@link #MIN_PAUSE}, {@link #MAX_PAUSE}], so a gateway or proxy that answers at once
 * is not asked in a tight loop. {@code seconds_done} and {@code seconds_total}, when the gateway
 * sends both, go to {@link TranscriptionListener#transcriptionProgress}.
 *
 * <p>One instance per note, across its attempts. Thread-safe: its state changes under its lock.
 */
final class RunningWork {

  /** Answers in a row without growth of {@code seconds_done} before the wait may end. */
  static final int STALLED_ANSWERS = 3;

  /** The shortest pause between two questions: the gateway's own {@code Retry-After: 1}. */
  static final Duration MIN_PAUSE = Duration.ofSeconds(1);

  /** The longest pause between two questions, whatever {@code Retry-After} says. */
  static final Duration MAX_PAUSE = Duration.ofSeconds(5);

  private final NoteRequests requests;
  private final LongSupplier ticker;
  private final Duration limit;
  private final Duration stalledAfter;

  /** When the note's first question that was answered "running" was sent; -1 before. */
  private long waitingSince = -1;

  private double lastDone = -1;
  private long lastGrowth;
  private int answersWithoutGrowth;

  RunningWork(NoteRequests requests, LongSupplier ticker, RunningWorkLimits limits) {
    this.requests = requests;
    this.ticker = ticker;
    this.limit = limits.waitFor(requests.note);
    this.stalledAfter = limits.stalledAfter();
  }

  /**
   * Sends {@code request} for {@code attempt} and asks again while the gateway answers 202. Any
   * other answer goes to {@code answered}; a failed call, a cancel, or the end of the wait to
   * {@code ended}.
   */
  void ask(
      Attempt attempt,
      Request request,
      NoteRequests.Answered answered,
      Consumer<Resender.AttemptResult> ended) {
    long sentAt = ticker.getAsLong();
    requests.exchange(
        request,
        null,
        response -> {
          if (response.code() != 202) {
            answered.accept(response);
            return;
          }
          Map<?, ?> json = AnswerReader.bodyOf(response);
          Double done = number(json, "seconds_done");
          Double total = number(json, "seconds_total");
          if (done != null && total != null) {
            double secondsDone = done;
            double secondsTotal = total;
            requests.tell(
                listener -> listener.transcriptionProgress(attempt, secondsDone, secondsTotal));
          }
          Duration pause = pauseAfter(response);
          String over = reasonToStop(sentAt, done, pause);
          if (over != null) {
            ended.accept(new Resender.StillRunning(running(response, over)));
            return;
          }
          requests.pauseThen(pause, () -> ask(attempt, request, answered, ended), ended);
        },
        ended,
        ended);
  }

  /** Why the wait ends after this answer, or null to ask again after {@code pause}. */
  private synchronized @Nullable String reasonToStop(
      long sentAt, @Nullable Double done, Duration pause) {
    long now = ticker.getAsLong();
    if (waitingSince < 0) {
      waitingSince = sentAt;
      lastGrowth = now;
    }
    if (done != null && done > lastDone) {
      lastDone = done;
      lastGrowth = now;
      answersWithoutGrowth = 0;
    } else if (done != null) {
      answersWithoutGrowth++;
    }
    // The gateway's deadline for the note has passed by then: its work has failed or soon will.
    Duration waited = Duration.ofNanos(now - waitingSince);
    if (waited.plus(pause).compareTo(limit) > 0) {
      return "the gateway was still transcribing this note after " + waited.toSeconds() + " s";
    }
    // The work is stuck (a lost worker, a queue that does not move): waiting is in vain.
    Duration flat = Duration.ofNanos(now - lastGrowth);
    if (answersWithoutGrowth >= STALLED_ANSWERS && flat.compareTo(stalledAfter) >= 0) {
      return "the gateway reported no progress on this note for " + flat.toSeconds() + " s";
    }
    return null;
  }

  private Duration pauseAfter(Response response) {
    Duration asked = requests.retryAfter(response);
    if (asked == null || asked.compareTo(MIN_PAUSE) < 0) {
      return MIN_PAUSE;
    }
    return asked.compareTo(MAX_PAUSE) > 0 ? MAX_PAUSE : asked;
  }

  private Failure.Http running(Response response, String message) {
    return new Failure.Http(
        202,
        Lookup.RUNNING,
        message,
        response.header("X-Bolo-Request-Id"),
        requests.retryAfter(response));
  }

  /** A finite, non-negative number under {@code key}, or null. */
  private static @Nullable Double number(@Nullable Map<?, ?> json, String key) {
    Object value = json == null ? null : json.get(key);
    if (!(value instanceof Number number)) {
      return null;
    }
    double seconds = number.doubleValue();
    return Double.isFinite(seconds) && seconds >= 0 ? seconds : null;
  }
}
