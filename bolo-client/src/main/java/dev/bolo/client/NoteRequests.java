package dev.bolo.client;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;

/**
 * What every request of one note shares: the client's HTTP stack and token, the note and its
 * settings, its timeouts, its listeners and its cancel flag; and the one way its requests are sent
 * (asynchronously, aborted by a cancel) and their endings turned into {@link
 * Resender.AttemptResult}s. Thread-safe: immutable apart from the flag, which is.
 */
final class NoteRequests {

  /** Handles an answer; may read its body. */
  @FunctionalInterface
  interface Answered {
    void accept(Response response) throws IOException;
  }

  final OkHttpClient http;
  final String token;
  final Clock clock;
  final VoiceNote note;
  final TranscriptionOptions options;

  /** The app's fixed timeout for each attempt, or null for the SDK's rule. */
  final @Nullable Duration attemptTimeout;

  /** The note's read and write timeout (the SDK's rule, or the app's fixed one). */
  final Duration noteTimeout;

  final List<TranscriptionListener> listeners;
  final CancelFlag flag;
  final Scheduler scheduler;

  NoteRequests(
      OkHttpClient http,
      String token,
      Clock clock,
      VoiceNote note,
      TranscriptionOptions options,
      @Nullable Duration attemptTimeout,
      Duration noteTimeout,
      List<TranscriptionListener> listeners,
      CancelFlag flag,
      Scheduler scheduler) {
    this.http = http;
    this.token = token;
    this.clock = clock;
    this.note = note;
    this.options = options;
    this.attemptTimeout = attemptTimeout;
    this.noteTimeout = noteTimeout;
    this.listeners = List.copyOf(listeners);
    this.flag = flag;
    this.scheduler = scheduler;
  }

  /**
   * Sends {@code request}: an answer goes to {@code answered}, a failed call to {@code failed}; a
   * cancel, a request the app's interceptors refuse, or a bug in {@code answered} to {@code end}.
   *
   * @param audio the request's audio, to tell a note that cannot be read from a broken link
   */
  void exchange(
      Request request,
      @Nullable NoteBody audio,
      Answered answered,
      Consumer<Resender.AttemptResult> failed,
      Consumer<Resender.AttemptResult> end) {
    // A cancel is final: nothing is sent after it.
    if (flag.isCancelled()) {
      end.accept(new Resender.Stopped());
      return;
    }
    Call call;
    try {
      call = http.newCall(request);
    } catch (RuntimeException rejected) {
      end.accept(rejected(rejected));
      return;
    }
    Runnable untrack = flag.onCancel(call::cancel);
    call.enqueue(
        new Callback() {
          @Override
          public void onFailure(Call broken, IOException e) {
            untrack.run();
            failed.accept(failure(broken, audio, e));
          }

          @Override
          public void onResponse(Call call, Response response) {
            untrack.run();
            try (response) {
              answered.accept(response);
            } catch (IOException e) {
              failed.accept(failure(call, audio, e));
            } catch (RuntimeException bug) {
              end.accept(rejected(bug));
            }
          }
        });
  }

  /** Runs {@code next} after {@code pause}; a cancel meanwhile ends the attempt at once. */
  void pauseThen(Duration pause, Runnable next, Consumer<Resender.AttemptResult> end) {
    AtomicBoolean fired = new AtomicBoolean();
    AtomicReference<Scheduler.@Nullable Pending> pending = new AtomicReference<>();
    Runnable untrack =
        flag.onCancel(
            () -> {
              if (fired.compareAndSet(false, true)) {
                Scheduler.Pending scheduled = pending.get();
                if (scheduled != null) {
                  scheduled.cancel();
                }
                end.accept(new Resender.Stopped());
              }
            });
    pending.set(
        scheduler.schedule(
            pause,
            () -> {
              if (fired.compareAndSet(false, true)) {
                untrack.run();
                next.run();
              }
            }));
  }

  /** An app interceptor or event listener factory that throws: nothing was sent. */
  Resender.AttemptResult rejected(RuntimeException rejected) {
    return new Resender.Failed(
        new Failure.Network(Failure.NetworkKind.PROTOCOL, NetworkFailures.describe(rejected)));
  }

  /** What a failed call means for the attempt: unreadable audio, a cancel, or the network. */
  Resender.AttemptResult failure(Call call, @Nullable NoteBody audio, IOException e) {
    IOException readFailure = audio == null ? null : audio.readFailure();
    // The note, not the network, failed: reading it again would fail the same way.
    if (readFailure != null) {
      return new Resender.Unreadable(NetworkFailures.describe(readFailure));
    }
    // Whoever cancelled the call (this note's cancel, or the app through its own dispatcher or
    // by shutting OkHttp down) wants the note to end, not to be resent.
    if (call.isCanceled() || NetworkFailures.isInterruption(e)) {
      flag.cancel();
      return new Resender.Stopped();
    }
    return new Resender.Failed(NetworkFailures.classify(e));
  }

  /** The answer as the attempt's result; see {@link AnswerReader#resultOf}. */
  Resender.AttemptResult answer(Response response, @Nullable String notTranscript)
      throws IOException {
    return AnswerReader.resultOf(response, notTranscript, clock);
  }

  /** The answer's {@code Retry-After} as a wait, when present and valid. */
  @Nullable Duration retryAfter(Response response) {
    return AnswerReader.retryAfter(response, clock);
  }

  /**
   * Reads the audio again and compares it with the note's hash: null when it is unchanged, else why
   * it cannot be sent. Disk work: call it on OkHttp's threads.
   */
  Resender.@Nullable AttemptResult checkAudio() {
    String now;
    try {
      now = note.changedHash();
    } catch (IOException | RuntimeException unreadable) {
      return new Resender.Unreadable(NetworkFailures.describe(unreadable));
    }
    // Sending other bytes under the old hash would only earn a 400 audio_hash_mismatch.
    return now == null ? null : new Resender.Changed(note.sha256(), now);
  }

  /** Tells the note's listeners of {@code attempt}'s upload progress. */
  NoteBody.Progress uploadProgressOf(Attempt attempt) {
    return (sent, total) -> tell(listener -> listener.uploadProgress(attempt, sent, total));
  }

  /** Tells every listener of the note; see {@link Resender#tell}. */
  void tell(Consumer<TranscriptionListener> event) {
    Resender.tell(listeners, event);
  }
}
