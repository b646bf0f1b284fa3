package dev.bolo.client;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;

/**
 * Sends one note as a tus 1.0.0 resumable upload ({@code /v1/uploads}, PROTOCOL.md "Resumable
 * uploads"): creates the upload, appends the note streaming from the server's offset, and fetches
 * the transcript with {@code GET /v1/uploads/{id}/transcription?wait=N}. A link that breaks during
 * an append costs only what was in flight: a {@code HEAD} asks how far the gateway got and the next
 * append goes on from there.
 *
 * <p>A resume is part of the attempt it continues: the attempt goes on as long as each resume moves
 * the gateway's offset forward, at most {@link #MAX_RESUMES_PER_ATTEMPT} times. When the offset
 * shows no progress the gateway is asked again after short pauses ({@link #SETTLE_PAUSES}: it may
 * still be taking the broken append's bytes); still none, the attempt ends with the link's failure
 * and the resend policy decides (its pause, its window); the next attempt picks the same upload up
 * again from the gateway's offset.
 *
 * <p>One instance per note: it remembers the note's upload across attempts. Thread-safe: an
 * attempt's steps run one after another on OkHttp's threads; attempts never overlap.
 */
final class TusUpload {

  static final String UPLOADS_PATH = "v1/uploads";
  static final String TUS_VERSION = "1.0.0";
  static final MediaType OFFSET_OCTET_STREAM = MediaType.get("application/offset+octet-stream");

  /**
   * Resumes one attempt may make. Each must also move the gateway's offset forward, so the bound
   * only matters on a link that breaks every few kilobytes: 32 resumes carry a 25 MiB note (the
   * gateway's default limit) even when each connection delivers less than 1 MiB.
   */
  static final int MAX_RESUMES_PER_ATTEMPT = 32;

  /**
   * Waits before asking the offset again when the first answer after a break shows no progress. The
   * gateway may still be taking the broken append's last bytes (it notices the broken connection
   * after the client does); asking again beats appending blind, whose bytes would pile up in socket
   * buffers while the gateway finishes the broken append.
   */
  static final List<Duration> SETTLE_PAUSES =
      List.of(Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1));

  /** Room on top of the gateway's wait for the transcript to arrive. */
  private static final Duration ANSWER_MARGIN = Duration.ofSeconds(10);

  /** The longest wait the gateway accepts ({@code wait} is 0–60 s). */
  private static final Duration MAX_WAIT = Duration.ofSeconds(60);

  private final Uploader uploader;
  private final OkHttpClient http;
  private final HttpUrl uploads;
  private final String token;
  private final VoiceNote note;
  private final TranscriptionOptions options;
  private final Duration noteTimeout;
  private final @Nullable Duration attemptTimeout;
  private final List<TranscriptionListener> listeners;
  private final CancelFlag flag;
  private final Scheduler scheduler;

  /** The note's upload on the gateway, kept across attempts; null until created or once gone. */
  private volatile @Nullable HttpUrl location;

  TusUpload(
      Uploader uploader,
      OkHttpClient http,
      HttpUrl uploads,
      String token,
      VoiceNote note,
      TranscriptionOptions options,
      Duration noteTimeout,
      @Nullable Duration attemptTimeout,
      List<TranscriptionListener> listeners,
      CancelFlag flag,
      Scheduler scheduler) {
    this.uploader = uploader;
    this.http = http;
    this.uploads = uploads;
    this.token = token;
    this.note = note;
    this.options = options;
    this.noteTimeout = noteTimeout;
    this.attemptTimeout = attemptTimeout;
    this.listeners = List.copyOf(listeners);
    this.flag = flag;
    this.scheduler = scheduler;
  }

  /**
   * Makes the upload part of {@code attempt} (any lookup has been made) and reports its result
   * once; {@code fallBack} is run instead when the gateway turns out to have no uploads.
   */
  void send(Attempt attempt, Consumer<Resender.AttemptResult> done, Runnable fallBack) {
    new Step(attempt, done, fallBack).begin();
  }

  /** The steps of one attempt; each runs after the one before has answered. */
  private final class Step {
    private final Attempt attempt;
    private final Consumer<Resender.AttemptResult> done;
    private final Runnable fallBack;
    private int resumes;
    private boolean created;
    private boolean restartedAfterMisroute;

    Step(Attempt attempt, Consumer<Resender.AttemptResult> done, Runnable fallBack) {
      this.attempt = attempt;
      this.done = done;
      this.fallBack = fallBack;
    }

    void begin() {
      HttpUrl known = location;
      if (known == null) {
        create();
        return;
      }
      // An earlier attempt left the upload behind: go on from wherever the gateway got to.
      head(known, offset -> appendOrAwait(known, offset, false));
    }

    private void create() {
      created = true;
      Request.Builder request =
          base(uploads, attemptTimeout)
              .header("Upload-Length", Long.toString(note.size()))
              .header("Upload-Metadata", metadata())
              // An sf-string, as the IETF httpapi Idempotency-Key draft defines the field.
              .header("Idempotency-Key", "\"" + attempt.idempotencyKey() + "\"")
              // Plain creation, not creation-with-upload: a link that broke during a first
              // append sent with the creation would lose both the bytes and the upload's address.
              .post(RequestBody.create(new byte[0], null));
      note.durationMs()
          .ifPresent(ms -> request.header(UploadTimeouts.DURATION_HEADER, Long.toString(ms)));
      exchange(
          request.build(),
          null,
          response -> {
            int status = response.code();
            String where = response.header("Location");
            // No /v1/uploads here (an older gateway, or a proxy that passes only the POST).
            if (status == 404 || status == 405) {
              fallBack.run();
              return;
            }
            if (status != 201 || where == null) {
              end(uploader.answer(response, status == 201 ? "a creation without Location" : null));
              return;
            }
            HttpUrl url = response.request().url().resolve(where);
            if (url == null) {
              end(invalid(status, "the upload's Location is not a URL: " + where));
              return;
            }
            location = url;
            long offset = offsetOf(response);
            appendOrAwait(url, offset < 0 ? 0 : offset, false);
          },
          this::end);
    }

    /** Asks the gateway how many bytes of the upload it holds. */
    private void head(HttpUrl url, OffsetAction then) {
      exchange(
          base(url, attemptTimeout).head().build(),
          null,
          response -> {
            if (response.code() == 404) {
              gone();
              return;
            }
            long offset = offsetOf(response);
            if (response.code() != 200 || offset < 0) {
              end(uploader.answer(response, "a HEAD without Upload-Offset"));
              return;
            }
            then.at(offset);
          },
          this::end);
    }

    private void appendOrAwait(HttpUrl url, long offset, boolean checkFirst) {
      if (offset >= note.size()) {
        awaitTranscript(url);
      } else {
        append(url, offset, checkFirst);
      }
    }

    /**
     * Sends the note from {@code offset} to its end. {@code checkFirst}: the audio is checked
     * against the note's hash first; the attempt's own check covers its first append.
     */
    private void append(HttpUrl url, long offset, boolean checkFirst) {
      if (flag.isCancelled()) {
        end(new Resender.Stopped());
        return;
      }
      if (checkFirst && note.canChange()) {
        Resender.AttemptResult unusable = uploader.checkAudio();
        if (unusable != null) {
          if (unusable instanceof Resender.Changed) {
            terminate(url);
          }
          end(unusable);
          return;
        }
      }
      NoteBody audio =
          new NoteBody(
              note,
              offset,
              OFFSET_OCTET_STREAM,
              (sent, total) ->
                  Resender.tell(
                      listeners, listener -> listener.uploadProgress(attempt, sent, total)));
      Request request =
          base(url, noteTimeout)
              .header("Upload-Offset", Long.toString(offset))
              .patch(audio)
              .build();
      exchange(
          request,
          audio,
          response -> {
            int status = response.code();
            long now = offsetOf(response);
            if (status == 404) {
              gone();
            } else if (status == 421) {
              misrouted(response);
            } else if (status == 409 && now >= 0) {
              conflicted(url, now, response);
            } else if (status != 204 || now < 0) {
              end(uploader.answer(response, "an append answered without Upload-Offset"));
            } else if (now >= note.size()) {
              awaitTranscript(url);
            } else if (now > offset) {
              // The gateway took part of the append and said so: send the rest.
              append(url, now, true);
            } else {
              end(invalid(status, "an append moved the offset from " + offset + " to " + now));
            }
          },
          result -> afterBrokenAppend(url, offset, result));
    }

    /** A link failure during an append is resumed; any other ending ends the attempt. */
    private void afterBrokenAppend(HttpUrl url, long from, Resender.AttemptResult result) {
      if (!(result instanceof Resender.Failed failed) || !isBrokenLink(failed.failure())) {
        end(result);
        return;
      }
      settleThenResume(url, from, failed, 0);
    }

    /**
     * Asks the gateway's offset; when it has not moved past {@code from}, asks again after each of
     * {@link #SETTLE_PAUSES} before giving the attempt up.
     */
    private void settleThenResume(
        HttpUrl url, long from, Resender.AttemptResult broken, int pausesTaken) {
      head(
          url,
          offset -> {
            if (offset > from || pausesTaken >= SETTLE_PAUSES.size()) {
              resumeOrEnd(url, from, offset, broken);
              return;
            }
            pauseThen(
                SETTLE_PAUSES.get(pausesTaken),
                () -> settleThenResume(url, from, broken, pausesTaken + 1));
          });
    }

    /** Runs {@code next} after {@code pause}; a cancel meanwhile ends the attempt at once. */
    private void pauseThen(Duration pause, Runnable next) {
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
                  end(new Resender.Stopped());
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

    /**
     * Goes on from {@code offset} when the broken append moved it forward and resumes are left;
     * otherwise the attempt ends with the link's failure and the policy decides.
     */
    private void resumeOrEnd(
        HttpUrl url, long from, long offset, Resender.AttemptResult brokenWith) {
      if (offset >= note.size()) {
        // Every byte arrived; only the answer to the append was lost.
        awaitTranscript(url);
        return;
      }
      // Nothing gained: the link is down, not merely interrupted; the policy's pause suits it.
      if (offset <= from) {
        end(brokenWith);
        return;
      }
      // A link that breaks every few kilobytes is not worth holding the attempt for.
      if (resumes >= MAX_RESUMES_PER_ATTEMPT) {
        end(brokenWith);
        return;
      }
      resumes++;
      Resender.tell(listeners, listener -> listener.uploadResumed(attempt, offset, note.size()));
      append(url, offset, true);
    }

    /**
     * The gateway holds another offset than the append assumed (an earlier append it was still
     * taking when we asked, or bytes it lost): its count is the truth, within the resume budget.
     */
    private void conflicted(HttpUrl url, long offset, Response response) {
      if (offset >= note.size()) {
        awaitTranscript(url);
        return;
      }
      if (resumes >= MAX_RESUMES_PER_ATTEMPT) {
        end(conflict(response));
        return;
      }
      resumes++;
      Resender.tell(listeners, listener -> listener.uploadResumed(attempt, offset, note.size()));
      append(url, offset, true);
    }

    /** Waits for the transcript of the complete upload, as long as the note's timeout allows. */
    private void awaitTranscript(HttpUrl url) {
      if (flag.isCancelled()) {
        end(new Resender.Stopped());
        return;
      }
      Duration wait = waitFor(noteTimeout);
      HttpUrl transcription =
          url.newBuilder()
              .addPathSegment("transcription")
              .addQueryParameter("wait", Long.toString(wait.toSeconds()))
              .build();
      exchange(
          base(transcription, noteTimeout).get().build(),
          null,
          response -> {
            int status = response.code();
            if (status == 404) {
              gone();
              return;
            }
            if (status == 202) {
              // Still transcribing: the attempt ends and the policy asks again after its pause.
              end(
                  new Resender.Failed(
                      new Failure.Http(
                          202,
                          Lookup.RUNNING,
                          "the gateway is still transcribing this note",
                          response.header("X-Bolo-Request-Id"),
                          uploader.retryAfter(response))));
              return;
            }
            if (status != 200) {
              // The work failed: its upload is spent; a resend uploads the note anew.
              location = null;
            }
            end(uploader.answer(response, null));
          },
          this::end);
    }

    /**
     * 421 wrong_instance: the append reached a gateway instance other than the one holding the
     * upload's bytes (a balancer that moved the device, as when an instance joins or leaves). They
     * cannot be appended to from here: the note starts over as a new upload, which the balancer
     * sends where its appends will go. Once per attempt; a second 421 (a balancer that does not
     * keep an upload's requests together) ends the note with the gateway's error.
     */
    private void misrouted(Response response) throws IOException {
      location = null;
      if (restartedAfterMisroute) {
        end(uploader.answer(response, null));
        return;
      }
      restartedAfterMisroute = true;
      create();
    }

    /** The upload expired or was swept: start one afresh, once per attempt. */
    private void gone() {
      location = null;
      if (created) {
        end(
            new Resender.Failed(
                new Failure.Http(
                    404, "not_found", "the gateway lost the note's upload", null, null)));
        return;
      }
      create();
    }

    private void end(Resender.AttemptResult result) {
      done.accept(result);
    }

    /**
     * Sends {@code request}; an answer goes to {@code answered}, a failed call to {@code failed}.
     */
    private void exchange(
        Request request,
        @Nullable NoteBody audio,
        Answered answered,
        Consumer<Resender.AttemptResult> failed) {
      // A cancel is final: nothing is sent after it.
      if (flag.isCancelled()) {
        end(new Resender.Stopped());
        return;
      }
      Call call;
      try {
        call = http.newCall(request);
      } catch (RuntimeException rejected) {
        end(uploader.rejected(rejected));
        return;
      }
      Runnable untrack = flag.onCancel(call::cancel);
      call.enqueue(
          new Callback() {
            @Override
            public void onFailure(Call broken, IOException e) {
              untrack.run();
              failed.accept(uploader.failure(broken, audio, e));
            }

            @Override
            public void onResponse(Call call, Response response) {
              untrack.run();
              try (response) {
                answered.accept(response);
              } catch (IOException e) {
                failed.accept(uploader.failure(call, audio, e));
              } catch (RuntimeException bug) {
                end(uploader.rejected(bug));
              }
            }
          });
    }
  }

  /** Ends the gateway's upload of a note that changed: its bytes can never be transcribed. */
  private void terminate(HttpUrl url) {
    location = null;
    try {
      http.newCall(base(url, attemptTimeout).delete().build())
          .enqueue(
              new Callback() {
                @Override
                public void onFailure(Call call, IOException e) {
                  // The gateway sweeps what it is not told to delete (BOLO_UPLOAD_TTL).
                }

                @Override
                public void onResponse(Call call, Response response) {
                  response.close();
                }
              });
    } catch (RuntimeException rejected) {
      // As above: the sweep deletes it later.
    }
  }

  /** The headers every tus request carries, and its timeout. */
  private Request.Builder base(HttpUrl url, @Nullable Duration timeout) {
    Request.Builder request =
        new Request.Builder()
            .url(url)
            .header("Authorization", "Bearer " + token)
            .header("Tus-Resumable", TUS_VERSION);
    if (timeout != null) {
      request.tag(UploadTimeouts.Fixed.class, new UploadTimeouts.Fixed(timeout));
    }
    return request;
  }

  /**
   * tus's {@code Upload-Metadata}: comma-separated {@code key base64(value)} pairs, the settings
   * under the form's field names, the file name and the note's SHA-256.
   */
  String metadata() {
    StringBuilder pairs = new StringBuilder();
    pair(pairs, "filename", note.fileName());
    pair(pairs, "sha256", note.sha256());
    pair(pairs, "language", options.language());
    pair(pairs, "model", options.model());
    pair(pairs, "prompt", options.prompt());
    return pairs.toString();
  }

  private static void pair(StringBuilder pairs, String key, @Nullable String value) {
    if (value == null) {
      return;
    }
    if (pairs.length() > 0) {
      pairs.append(',');
    }
    pairs
        .append(key)
        .append(' ')
        .append(Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * The gateway's wait for a transcript: the note's read timeout less room for the answer to
   * arrive, at most the 60 s the gateway allows.
   */
  static Duration waitFor(Duration readTimeout) {
    Duration wait = readTimeout.minus(ANSWER_MARGIN);
    if (wait.isNegative()) {
      return Duration.ZERO;
    }
    return wait.compareTo(MAX_WAIT) > 0 ? MAX_WAIT : wait;
  }

  /** Whether a failed call broke the link mid-way, so that the gateway may hold part of it. */
  private static boolean isBrokenLink(Failure failure) {
    return failure instanceof Failure.Network network
        && (network.kind() == Failure.NetworkKind.CONNECTION
            || network.kind() == Failure.NetworkKind.TIMEOUT);
  }

  /** {@code Upload-Offset} as a number, or -1 when missing or invalid. */
  static long offsetOf(Response response) {
    String value = response.header("Upload-Offset");
    if (value == null || value.isEmpty() || value.length() > 18) {
      return -1;
    }
    for (int i = 0; i < value.length(); i++) {
      if (value.charAt(i) < '0' || value.charAt(i) > '9') {
        return -1;
      }
    }
    return Long.parseLong(value);
  }

  private static Resender.AttemptResult conflict(Response response) {
    return new Resender.Failed(
        new Failure.Http(
            409,
            "offset_conflict",
            "the gateway holds another offset: " + response.header("Upload-Offset"),
            response.header("X-Bolo-Request-Id"),
            null));
  }

  private static Resender.AttemptResult invalid(int status, String message) {
    return new Resender.Failed(new Failure.Http(status, "invalid_response", message, null, null));
  }

  /** What to do with the gateway's offset. */
  @FunctionalInterface
  private interface OffsetAction {
    void at(long offset);
  }

  /** Handles an answer; may read its body. */
  @FunctionalInterface
  private interface Answered {
    void accept(Response response) throws IOException;
  }
}
