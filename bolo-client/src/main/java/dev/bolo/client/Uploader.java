package dev.bolo.client;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ProtocolException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.security.cert.CertificateException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLPeerUnverifiedException;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.MultipartBody;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.BufferedSink;
import org.jspecify.annotations.Nullable;

/**
 * Makes the attempts of one note over HTTP, each as OkHttp asynchronous calls: checks the audio
 * against the note's hash (on OkHttp's threads, never the app's), asks for the transcript before a
 * resend, uploads the note (whole, or as a resumable upload when it is large and the gateway has
 * them), and turns whatever happened into a {@link Resender.AttemptResult}. No exception leaves it:
 * every ending is a result.
 */
final class Uploader implements Resender.Sender {

  /** Error bodies and transcripts are small; a larger body is not the gateway's. */
  static final long MAX_BODY_BYTES = 1024 * 1024;

  private final OkHttpClient http;
  private final HttpUrl endpoint;
  private final String token;
  private final Clock clock;
  private final VoiceNote note;
  private final TranscriptionOptions options;
  private final @Nullable Duration attemptTimeout;
  private final boolean lookupBeforeResend;
  private final List<TranscriptionListener> listeners;
  private final CancelFlag flag;
  private final @Nullable TusUpload resumable;
  private final AtomicBoolean gatewayHasUploads;

  /**
   * @param uploads the gateway's tus endpoint, or null to send this note whole
   * @param noteTimeout the note's read and write timeout (the SDK's rule, or the app's fixed one)
   * @param gatewayHasUploads shared by the client's notes: set to false once the gateway answered a
   *     creation with 404 or 405, so later notes go straight to the plain upload
   */
  Uploader(
      OkHttpClient http,
      HttpUrl endpoint,
      String token,
      Clock clock,
      VoiceNote note,
      TranscriptionOptions options,
      @Nullable Duration attemptTimeout,
      boolean lookupBeforeResend,
      List<TranscriptionListener> listeners,
      CancelFlag flag,
      @Nullable HttpUrl uploads,
      Duration noteTimeout,
      AtomicBoolean gatewayHasUploads,
      Scheduler scheduler) {
    this.http = http;
    this.endpoint = endpoint;
    this.token = token;
    this.clock = clock;
    this.note = note;
    this.options = options;
    this.attemptTimeout = attemptTimeout;
    this.lookupBeforeResend = lookupBeforeResend;
    this.listeners = List.copyOf(listeners);
    this.flag = flag;
    this.gatewayHasUploads = gatewayHasUploads;
    this.resumable =
        uploads == null
            ? null
            : new TusUpload(
                this,
                http,
                uploads,
                token,
                note,
                options,
                noteTimeout,
                attemptTimeout,
                listeners,
                flag,
                scheduler);
  }

  @Override
  public void send(Attempt attempt, Consumer<Resender.AttemptResult> done) {
    if (!note.canChange()) {
      enqueue(attempt, done);
      return;
    }
    try {
      // Reading and hashing the audio is disk work: OkHttp's threads do it, not the app's.
      http.dispatcher().executorService().execute(() -> checkThenEnqueueSafely(attempt, done));
    } catch (RejectedExecutionException shutDown) {
      // The app shut its OkHttp client down: that ends its notes, as a cancel would.
      flag.cancel();
      done.accept(new Resender.Stopped());
    }
  }

  /** On a pool thread an exception would be lost and the note never end: make it a result. */
  private void checkThenEnqueueSafely(Attempt attempt, Consumer<Resender.AttemptResult> done) {
    try {
      checkThenEnqueue(attempt, done);
    } catch (RuntimeException bug) {
      done.accept(
          new Resender.Failed(
              new Failure.Network(Failure.NetworkKind.PROTOCOL, "unexpected " + describe(bug))));
    }
  }

  private void checkThenEnqueue(Attempt attempt, Consumer<Resender.AttemptResult> done) {
    if (flag.isCancelled()) {
      done.accept(new Resender.Stopped());
      return;
    }
    Resender.AttemptResult unusable = checkAudio();
    if (unusable != null) {
      done.accept(unusable);
      return;
    }
    enqueue(attempt, done);
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
      return new Resender.Unreadable(describe(unreadable));
    }
    // Sending other bytes under the old hash would only earn a 400 audio_hash_mismatch.
    return now == null ? null : new Resender.Changed(note.sha256(), now);
  }

  /**
   * A resend first asks whether the gateway already has the transcript (the answer to an earlier
   * attempt may have been lost on the way back); the first attempt has nothing to ask about.
   */
  private void enqueue(Attempt attempt, Consumer<Resender.AttemptResult> done) {
    if (attempt.number() == 1 || !lookupBeforeResend) {
      upload(attempt, done);
      return;
    }
    Request lookup;
    try {
      lookup = Lookup.request(endpoint, token, note.sha256(), options, attempt, attemptTimeout);
      Lookup.ask(
          http,
          lookup,
          clock,
          flag,
          (call, e) -> failure(call, null, e),
          answer -> afterLookup(attempt, answer, done));
    } catch (RuntimeException rejected) {
      // An app interceptor or event listener factory that throws: nothing was sent.
      done.accept(
          new Resender.Failed(
              new Failure.Network(Failure.NetworkKind.PROTOCOL, describe(rejected))));
    }
  }

  private void afterLookup(
      Attempt attempt, Lookup.Answer answer, Consumer<Resender.AttemptResult> done) {
    // Java 17: no pattern switch; each answer is one type.
    if (answer instanceof Lookup.Found found) {
      done.accept(new Resender.Succeeded(found.transcript()));
    } else if (answer instanceof Lookup.Running running) {
      done.accept(new Resender.Failed(running.failure()));
    } else if (answer instanceof Lookup.Ended ended) {
      done.accept(ended.result());
    } else if (flag.isCancelled()) {
      // Cancelled between the lookup's answer and the upload: a cancel is final.
      done.accept(new Resender.Stopped());
    } else {
      upload(attempt, done);
    }
  }

  /** Sends the note resumably when it is large and the gateway has uploads, else whole. */
  private void upload(Attempt attempt, Consumer<Resender.AttemptResult> done) {
    TusUpload tus = resumable;
    if (tus == null || !gatewayHasUploads.get()) {
      uploadWhole(attempt, done);
      return;
    }
    tus.send(
        attempt,
        done,
        () -> {
          // Remembered for the client's later notes: this gateway has no resumable uploads.
          gatewayHasUploads.set(false);
          uploadWhole(attempt, done);
        });
  }

  private void uploadWhole(Attempt attempt, Consumer<Resender.AttemptResult> done) {
    // A cancel is final: nothing is sent after it.
    if (flag.isCancelled()) {
      done.accept(new Resender.Stopped());
      return;
    }
    NoteBody audio =
        new NoteBody(
            note,
            (sent, total) ->
                Resender.tell(
                    listeners, listener -> listener.uploadProgress(attempt, sent, total)));
    Call call;
    try {
      call = http.newCall(requestFor(attempt, audio));
    } catch (RuntimeException rejected) {
      done.accept(rejected(rejected));
      return;
    }
    Runnable untrack = flag.onCancel(call::cancel);
    call.enqueue(
        new Callback() {
          @Override
          public void onFailure(Call failed, IOException e) {
            untrack.run();
            done.accept(failure(failed, audio, e));
          }

          @Override
          public void onResponse(Call answered, Response response) {
            untrack.run();
            Resender.AttemptResult result;
            try (response) {
              result = answer(response, null);
            } catch (IOException e) {
              result = failure(answered, audio, e);
            }
            done.accept(result);
          }
        });
  }

  /** An app interceptor or event listener factory that throws: nothing was sent. */
  Resender.AttemptResult rejected(RuntimeException rejected) {
    return new Resender.Failed(
        new Failure.Network(Failure.NetworkKind.PROTOCOL, describe(rejected)));
  }

  /** What a failed call means for the attempt: unreadable audio, a cancel, or the network. */
  Resender.AttemptResult failure(Call call, @Nullable NoteBody audio, IOException e) {
    IOException readFailure = audio == null ? null : audio.readFailure();
    // The note, not the network, failed: reading it again would fail the same way.
    if (readFailure != null) {
      return new Resender.Unreadable(describe(readFailure));
    }
    // Whoever cancelled the call (this note's cancel, or the app through its own dispatcher or
    // by shutting OkHttp down) wants the note to end, not to be resent.
    if (call.isCanceled() || isInterruption(e)) {
      flag.cancel();
      return new Resender.Stopped();
    }
    return new Resender.Failed(classify(e));
  }

  private Request requestFor(Attempt attempt, NoteBody audio) {
    MultipartBody.Builder form =
        new MultipartBody.Builder()
            .setType(MultipartBody.FORM)
            .addFormDataPart("audio", note.fileName(), audio);
    addIfPresent(form, "language", options.language());
    addIfPresent(form, "model", options.model());
    addIfPresent(form, "prompt", options.prompt());
    Request.Builder request =
        new Request.Builder()
            .url(endpoint)
            .header("Authorization", "Bearer " + token)
            .header("X-Bolo-Audio-Sha256", note.sha256())
            // An sf-string, as the IETF httpapi Idempotency-Key draft defines the field.
            .header("Idempotency-Key", "\"" + attempt.idempotencyKey() + "\"")
            .header("X-Bolo-Request-Id", attempt.requestId())
            .post(new OneShot(form.build()));
    if (note.durationMs().isPresent()) {
      request.header(UploadTimeouts.DURATION_HEADER, Long.toString(note.durationMs().getAsLong()));
    }
    if (attemptTimeout != null) {
      request.tag(UploadTimeouts.Fixed.class, new UploadTimeouts.Fixed(attemptTimeout));
    }
    return request.build();
  }

  private static void addIfPresent(
      MultipartBody.Builder form, String name, @Nullable String value) {
    if (value != null) {
      form.addFormDataPart(name, value);
    }
  }

  /**
   * Turns an answer into a result; reading the body may still fail like the exchange itself.
   *
   * @param notTranscript what a success was instead of a transcript, when the caller knows
   */
  Resender.AttemptResult answer(Response response, @Nullable String notTranscript)
      throws IOException {
    int status = response.code();
    // OkHttp accepts any three digits; a status below 100 is not HTTP as the gateway speaks it.
    if (status < 100) {
      return new Resender.Failed(
          new Failure.Network(Failure.NetworkKind.PROTOCOL, "invalid HTTP status " + status));
    }
    String body = response.peekBody(MAX_BODY_BYTES).string();
    Map<?, ?> json = parseObject(body);
    if (status >= 200 && status < 300) {
      Transcript transcript = json == null ? null : transcriptFrom(json);
      if (transcript != null) {
        return new Resender.Succeeded(transcript);
      }
      return new Resender.Failed(
          new Failure.Http(
              status,
              "invalid_response",
              notTranscript != null ? notTranscript : "the gateway's answer is not a transcript",
              null,
              null));
    }
    return new Resender.Failed(
        new Failure.Http(
            status,
            json == null ? null : Json.string(json, "code"),
            errorMessage(response, json),
            json == null ? response.header("X-Bolo-Request-Id") : Json.string(json, "request_id"),
            retryAfter(response)));
  }

  /** The answer's {@code Retry-After} as a wait, when present and valid. */
  @Nullable Duration retryAfter(Response response) {
    return RetryAfter.parse(response.header("Retry-After"), clock.instant());
  }

  static @Nullable Map<?, ?> parseObject(String body) {
    try {
      Object value = Json.parse(body);
      return value instanceof Map<?, ?> object ? object : null;
    } catch (IllegalArgumentException notJson) {
      return null;
    }
  }

  static @Nullable Transcript transcriptFrom(Map<?, ?> json) {
    String text = Json.string(json, "text");
    if (text == null) {
      return null;
    }
    Object duration = json.get("duration_ms");
    return new Transcript(
        text,
        Boolean.TRUE.equals(json.get("deduplicated")),
        orEmpty(Json.string(json, "audio_sha256")),
        duration instanceof Number number ? number.longValue() : null,
        orEmpty(Json.string(json, "request_id")),
        orEmpty(Json.string(json, "engine")));
  }

  private static String errorMessage(Response response, @Nullable Map<?, ?> json) {
    if (json != null) {
      Object error = json.get("error");
      if (error instanceof String message) {
        return message;
      }
      // The OpenAI-compatible shape, should a base URL point there.
      String nested = error instanceof Map<?, ?> object ? Json.string(object, "message") : null;
      if (nested != null) {
        return nested;
      }
    }
    String reason = response.message();
    return "HTTP " + response.code() + (reason.isEmpty() ? "" : " " + reason);
  }

  private static String orEmpty(@Nullable String value) {
    return value == null ? "" : value;
  }

  private static String describe(Exception e) {
    return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
  }

  /**
   * An interrupt that is not a timeout: OkHttp's executor was shut down ("executor rejected") or
   * its thread interrupted. Either way the app is stopping its own HTTP work.
   */
  private static boolean isInterruption(IOException e) {
    return e instanceof InterruptedIOException
        && !(e instanceof SocketTimeoutException)
        && !"timeout".equals(e.getMessage());
  }

  /** What kind of network failure {@code e} is; the order matters (subclasses first). */
  static Failure.Network classify(IOException e) {
    String detail = describe(e);
    Failure.NetworkKind kind;
    if (e instanceof UnknownHostException) {
      kind = Failure.NetworkKind.UNKNOWN_HOST;
    } else if (e instanceof SocketTimeoutException
        || (e instanceof InterruptedIOException && "timeout".equals(e.getMessage()))) {
      // OkHttp reports a call or write timeout as InterruptedIOException("timeout").
      kind = Failure.NetworkKind.TIMEOUT;
    } else if (e instanceof SSLPeerUnverifiedException
        || (e instanceof SSLHandshakeException && e.getCause() instanceof CertificateException)) {
      kind = Failure.NetworkKind.TLS;
    } else if (e instanceof ProtocolException) {
      kind = Failure.NetworkKind.PROTOCOL;
    } else {
      // Refused, reset, broken pipe, unexpected end of stream, no route: the network, not the note.
      kind = Failure.NetworkKind.CONNECTION;
    }
    return new Failure.Network(kind, detail);
  }

  /**
   * The whole multipart body, marked one-shot. OkHttp's {@code RetryAndFollowUpInterceptor} sends a
   * request again by itself after a 503 with {@code Retry-After: 0}, a 408, a 421, a redirect or an
   * authentication challenge; it never does so for a one-shot body (OkHttp 4.12 and 5.x check this
   * before every follow-up). Every resend is then the policy's, with its pause and events.
   */
  private static final class OneShot extends RequestBody {
    private final RequestBody delegate;

    OneShot(RequestBody delegate) {
      this.delegate = delegate;
    }

    @Override
    public @Nullable MediaType contentType() {
      return delegate.contentType();
    }

    @Override
    public long contentLength() throws IOException {
      return delegate.contentLength();
    }

    @Override
    public boolean isOneShot() {
      return true;
    }

    @Override
    public void writeTo(BufferedSink sink) throws IOException {
      delegate.writeTo(sink);
    }
  }
}
