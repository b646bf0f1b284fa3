package dev.bolo.client;

import java.io.IOException;
import java.time.Duration;
import java.util.function.Consumer;
import okhttp3.HttpUrl;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;

/**
 * The steps of one attempt at a {@link TusUpload}: create (or {@code HEAD} the upload an earlier
 * attempt left), append from the gateway's offset, resume after a broken link, and fetch the
 * transcript. Each step runs after the one before has answered, on OkHttp's threads; the attempt
 * reports its result exactly once.
 */
final class TusAttempt {

  private final TusUpload upload;
  private final NoteRequests requests;
  private final VoiceNote note;
  private final Attempt attempt;
  private final Consumer<Resender.AttemptResult> done;
  private final Runnable fallBack;
  private int resumes;
  private boolean created;
  private boolean restartedAfterMisroute;

  TusAttempt(
      TusUpload upload,
      NoteRequests requests,
      Attempt attempt,
      Consumer<Resender.AttemptResult> done,
      Runnable fallBack) {
    this.upload = upload;
    this.requests = requests;
    this.note = requests.note;
    this.attempt = attempt;
    this.done = done;
    this.fallBack = fallBack;
  }

  void begin() {
    HttpUrl known = upload.location();
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
        base(upload.uploads(), requests.attemptTimeout)
            .header("Upload-Length", Long.toString(note.size()))
            .header("Upload-Metadata", upload.metadata())
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
            end(requests.answer(response, status == 201 ? "a creation without Location" : null));
            return;
          }
          HttpUrl url = response.request().url().resolve(where);
          if (url == null) {
            end(invalid(status, "the upload's Location is not a URL: " + where));
            return;
          }
          upload.remember(url);
          long offset = TusUpload.offsetOf(response);
          appendOrAwait(url, offset < 0 ? 0 : offset, false);
        },
        this::end);
  }

  /** Asks the gateway how many bytes of the upload it holds. */
  private void head(HttpUrl url, OffsetAction then) {
    exchange(
        base(url, requests.attemptTimeout).head().build(),
        null,
        response -> {
          if (response.code() == 404) {
            gone();
            return;
          }
          long offset = TusUpload.offsetOf(response);
          if (response.code() != 200 || offset < 0) {
            end(requests.answer(response, "a HEAD without Upload-Offset"));
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
   * Sends the note from {@code offset} to its end. {@code checkFirst}: the audio is checked against
   * the note's hash first; the attempt's own check covers its first append.
   */
  private void append(HttpUrl url, long offset, boolean checkFirst) {
    if (requests.flag.isCancelled()) {
      end(new Resender.Stopped());
      return;
    }
    if (checkFirst && note.canChange()) {
      Resender.AttemptResult unusable = requests.checkAudio();
      if (unusable != null) {
        if (unusable instanceof Resender.Changed) {
          upload.terminate(url);
        }
        end(unusable);
        return;
      }
    }
    NoteBody audio =
        new NoteBody(
            note, offset, TusUpload.OFFSET_OCTET_STREAM, requests.uploadProgressOf(attempt));
    Request request =
        base(url, requests.noteTimeout)
            .header("Upload-Offset", Long.toString(offset))
            .patch(audio)
            .build();
    exchange(
        request,
        audio,
        response -> {
          int status = response.code();
          long now = TusUpload.offsetOf(response);
          if (status == 404) {
            gone();
          } else if (status == 421) {
            misrouted(response);
          } else if (status == 409 && now >= 0) {
            conflicted(url, now, response);
          } else if (status != 204 || now < 0) {
            end(requests.answer(response, "an append answered without Upload-Offset"));
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
    if (!(result instanceof Resender.Failed failed)
        || !NetworkFailures.isBrokenLink(failed.failure())) {
      end(result);
      return;
    }
    settleThenResume(url, from, failed, 0);
  }

  /**
   * Asks the gateway's offset; when it has not moved past {@code from}, asks again after each of
   * {@link TusUpload#SETTLE_PAUSES} before giving the attempt up.
   */
  private void settleThenResume(
      HttpUrl url, long from, Resender.AttemptResult broken, int pausesTaken) {
    head(
        url,
        offset -> {
          if (offset > from || pausesTaken >= TusUpload.SETTLE_PAUSES.size()) {
            resumeOrEnd(url, from, offset, broken);
            return;
          }
          requests.pauseThen(
              TusUpload.SETTLE_PAUSES.get(pausesTaken),
              () -> settleThenResume(url, from, broken, pausesTaken + 1),
              this::end);
        });
  }

  /**
   * Goes on from {@code offset} when the broken append moved it forward and resumes are left;
   * otherwise the attempt ends with the link's failure and the policy decides.
   */
  private void resumeOrEnd(HttpUrl url, long from, long offset, Resender.AttemptResult brokenWith) {
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
    if (resumes >= TusUpload.MAX_RESUMES_PER_ATTEMPT) {
      end(brokenWith);
      return;
    }
    resumeFrom(url, offset);
  }

  /**
   * The gateway holds another offset than the append assumed (an earlier append it was still taking
   * when we asked, or bytes it lost): its count is the truth, within the resume budget.
   */
  private void conflicted(HttpUrl url, long offset, Response response) {
    if (offset >= note.size()) {
      awaitTranscript(url);
      return;
    }
    if (resumes >= TusUpload.MAX_RESUMES_PER_ATTEMPT) {
      end(conflict(response));
      return;
    }
    resumeFrom(url, offset);
  }

  private void resumeFrom(HttpUrl url, long offset) {
    resumes++;
    requests.tell(listener -> listener.uploadResumed(attempt, offset, note.size()));
    append(url, offset, true);
  }

  /**
   * Waits for the transcript of the complete upload: each question waits at the gateway as long as
   * the note's timeout allows, and is asked again while the work runs.
   */
  private void awaitTranscript(HttpUrl url) {
    if (requests.flag.isCancelled()) {
      end(new Resender.Stopped());
      return;
    }
    Duration wait = TusUpload.waitFor(requests.noteTimeout);
    HttpUrl transcription =
        url.newBuilder()
            .addPathSegment("transcription")
            .addQueryParameter("wait", Long.toString(wait.toSeconds()))
            .build();
    upload
        .running()
        .ask(
            attempt,
            base(transcription, requests.noteTimeout).get().build(),
            this::transcribed,
            this::end);
  }

  /** The gateway's final answer for the complete upload: the transcript, or why there is none. */
  private void transcribed(Response response) throws IOException {
    int status = response.code();
    if (status == 404) {
      gone();
      return;
    }
    if (status != 200) {
      // The work failed: its upload is spent; a resend uploads the note anew.
      upload.remember(null);
    }
    end(requests.answer(response, null));
  }

  /**
   * 421 wrong_instance: the append reached a gateway instance other than the one holding the
   * upload's bytes (a balancer that moved the device, as when an instance joins or leaves). They
   * cannot be appended to from here: the note starts over as a new upload, which the balancer sends
   * where its appends will go. Once per attempt; a second 421 (a balancer that does not keep an
   * upload's requests together) ends the note with the gateway's error.
   */
  private void misrouted(Response response) throws IOException {
    upload.remember(null);
    if (restartedAfterMisroute) {
      end(requests.answer(response, null));
      return;
    }
    restartedAfterMisroute = true;
    create();
  }

  /** The upload expired or was swept: start one afresh, once per attempt. */
  private void gone() {
    upload.remember(null);
    if (created) {
      end(
          new Resender.Failed(
              new Failure.Http(
                  404, "not_found", "the gateway lost the note's upload", null, null)));
      return;
    }
    create();
  }

  /** The headers every tus request carries, and the attempt's label, which the gateway logs. */
  private Request.Builder base(HttpUrl url, @Nullable Duration timeout) {
    return upload.base(url, timeout).header("X-Bolo-Request-Id", attempt.requestId());
  }

  private void end(Resender.AttemptResult result) {
    done.accept(result);
  }

  private void exchange(
      Request request,
      @Nullable NoteBody audio,
      NoteRequests.Answered answered,
      Consumer<Resender.AttemptResult> failed) {
    requests.exchange(request, audio, answered, failed, this::end);
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
}
