package dev.bolo.client;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLPeerUnverifiedException;
import okhttp3.Call;
import okhttp3.HttpUrl;
import okhttp3.MultipartBody;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;

/**
 * Uploads voice notes to a Bolo gateway's {@code POST /v1/transcriptions} and resends them under
 * {@link ResendPolicy} when, and only when, a resend can help.
 *
 * <p>Every attempt of a note carries the same {@code Idempotency-Key} and {@code
 * X-Bolo-Audio-Sha256}, so the gateway transcribes and charges the note once however many copies
 * arrive, and a fresh {@code X-Bolo-Request-Id} ending in the attempt number.
 *
 * <p>Thread-safe: one client serves any number of notes at once. It holds no resources of its own
 * beyond the {@link OkHttpClient} it was given (or a default one).
 */
public final class BoloClient {

  static final String TRANSCRIPTIONS_PATH = "v1/transcriptions";

  /** Error bodies and transcripts are small; a larger body is not the gateway's. */
  private static final long MAX_BODY_BYTES = 1024 * 1024;

  private final HttpUrl endpoint;
  private final String token;
  private final OkHttpClient http;
  private final Clock clock;
  private final Resender resender;
  private final Executor executor;

  private BoloClient(Builder builder) {
    this.endpoint =
        Objects.requireNonNull(builder.baseUrl, "baseUrl")
            .newBuilder()
            .addPathSegments(TRANSCRIPTIONS_PATH)
            .build();
    this.token = Objects.requireNonNull(builder.token, "token");
    // Our own resend policy decides every attempt: OkHttp's silent retry would hide attempts.
    this.http =
        builder
            .http
            .newBuilder()
            .retryOnConnectionFailure(false)
            .addInterceptor(builder.uploadTimeouts)
            .build();
    this.clock = builder.clock;
    this.resender =
        new Resender(
            builder.policy, builder.ticker, builder.sleeper, builder.random, builder.listener);
    this.executor = builder.executor;
  }

  /** A builder; {@link Builder#baseUrl} and {@link Builder#token} are required. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Transcribes {@code note} on this thread, resending as the policy allows. Interrupting this
   * thread cancels the note between attempts, during a pause or while the audio is sent, and leaves
   * the interrupt flag set; to abort a call that is waiting for its answer, use {@link
   * #transcribeAsync} and cancel its handle.
   */
  public Outcome transcribe(VoiceNote note, TranscriptionOptions options) {
    return transcribe(note, options, new CancelFlag());
  }

  /**
   * Transcribes {@code note} on the client's executor and returns at once with a handle that can
   * cancel it.
   */
  public TranscriptionHandle transcribeAsync(VoiceNote note, TranscriptionOptions options) {
    Objects.requireNonNull(note, "note");
    Objects.requireNonNull(options, "options");
    CancelFlag flag = new CancelFlag();
    CompletableFuture<Outcome> outcome = new CompletableFuture<>();
    executor.execute(
        () -> {
          try {
            outcome.complete(transcribe(note, options, flag));
          } catch (RuntimeException | Error e) {
            outcome.completeExceptionally(e);
          }
        });
    return new TranscriptionHandle(flag, outcome);
  }

  private Outcome transcribe(VoiceNote note, TranscriptionOptions options, CancelFlag flag) {
    Objects.requireNonNull(note, "note");
    Objects.requireNonNull(options, "options");
    String idempotencyKey = UUID.randomUUID().toString();
    return resender.run(idempotencyKey, flag, attempt -> send(note, options, attempt, flag));
  }

  private Resender.AttemptResult send(
      VoiceNote note, TranscriptionOptions options, Attempt attempt, CancelFlag flag) {
    Call call = http.newCall(requestFor(note, options, attempt));
    flag.track(call);
    try (Response response = call.execute()) {
      return read(response);
    } catch (IOException e) {
      return new Resender.Failed(classify(e));
    } finally {
      flag.untrack(call);
    }
  }

  private Request requestFor(VoiceNote note, TranscriptionOptions options, Attempt attempt) {
    MultipartBody.Builder form =
        new MultipartBody.Builder()
            .setType(MultipartBody.FORM)
            .addFormDataPart("audio", note.fileName(), note.body());
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
            .post(form.build());
    if (note.durationMs().isPresent()) {
      request.header(UploadTimeouts.DURATION_HEADER, Long.toString(note.durationMs().getAsLong()));
    }
    return request.build();
  }

  private static void addIfPresent(
      MultipartBody.Builder form, String name, @Nullable String value) {
    if (value != null) {
      form.addFormDataPart(name, value);
    }
  }

  /** Turns an answer into a result; reading the body may still fail like the exchange itself. */
  private Resender.AttemptResult read(Response response) throws IOException {
    String body = response.peekBody(MAX_BODY_BYTES).string();
    Map<?, ?> json = parseObject(body);
    int status = response.code();
    if (status >= 200 && status < 300) {
      Transcript transcript = json == null ? null : transcriptFrom(json);
      if (transcript != null) {
        return new Resender.Succeeded(transcript);
      }
      return new Resender.Failed(
          new Failure.Http(
              status, "invalid_response", "the gateway's answer is not a transcript", null, null));
    }
    return new Resender.Failed(
        new Failure.Http(
            status,
            json == null ? null : Json.string(json, "code"),
            errorMessage(response, json),
            json == null ? response.header("X-Bolo-Request-Id") : Json.string(json, "request_id"),
            RetryAfter.parse(response.header("Retry-After"), clock.instant())));
  }

  private static @Nullable Map<?, ?> parseObject(String body) {
    try {
      Object value = Json.parse(body);
      return value instanceof Map<?, ?> object ? object : null;
    } catch (IllegalArgumentException notJson) {
      return null;
    }
  }

  private static @Nullable Transcript transcriptFrom(Map<?, ?> json) {
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

  /** What kind of network failure {@code e} is; the order matters (subclasses first). */
  static Failure.Network classify(IOException e) {
    String detail =
        e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    Failure.NetworkKind kind;
    if (e instanceof UnknownHostException) {
      kind = Failure.NetworkKind.UNKNOWN_HOST;
    } else if (e instanceof SocketTimeoutException
        || (e instanceof InterruptedIOException && "timeout".equals(e.getMessage()))) {
      // OkHttp reports a call or write timeout as InterruptedIOException("timeout").
      kind = Failure.NetworkKind.TIMEOUT;
    } else if (e instanceof SSLPeerUnverifiedException
        || (e instanceof SSLHandshakeException
            && e.getCause() instanceof java.security.cert.CertificateException)) {
      kind = Failure.NetworkKind.TLS;
    } else if (e instanceof java.net.ProtocolException) {
      kind = Failure.NetworkKind.PROTOCOL;
    } else {
      // Refused, reset, broken pipe, unexpected end of stream, no route: the network, not the note.
      kind = Failure.NetworkKind.CONNECTION;
    }
    return new Failure.Network(kind, detail);
  }

  /**
   * Configures a {@link BoloClient}. Not thread-safe; build once and share the client.
   *
   * <p>Defaults: a new {@link OkHttpClient}, no listener, {@link ResendPolicy#standard()}, the
   * system clock and sleeper, a new {@link Random}, and a new daemon thread per async note.
   */
  public static final class Builder {
    private @Nullable HttpUrl baseUrl;
    private @Nullable String token;
    private OkHttpClient http = new OkHttpClient();
    private TranscriptionListener listener = TranscriptionListener.NONE;
    private ResendPolicy policy = ResendPolicy.standard();
    private Clock clock = Clock.systemUTC();
    private LongSupplier ticker = System::nanoTime;
    private Sleeper sleeper = Sleeper.system();
    private Random random = new Random();
    private Executor executor = Builder::startDaemon;
    private UploadTimeouts uploadTimeouts = new UploadTimeouts();

    private Builder() {}

    /** The gateway, such as {@code http://127.0.0.1:8080}; a path prefix is kept. */
    public Builder baseUrl(String baseUrl) {
      HttpUrl url = HttpUrl.parse(baseUrl);
      if (url == null) {
        throw new IllegalArgumentException("baseUrl must be an http or https URL: " + baseUrl);
      }
      return baseUrl(url);
    }

    /** The gateway, such as {@code http://127.0.0.1:8080}; a path prefix is kept. */
    public Builder baseUrl(HttpUrl baseUrl) {
      this.baseUrl = Objects.requireNonNull(baseUrl, "baseUrl");
      return this;
    }

    /** The device token, sent as {@code Authorization: Bearer TOKEN}. */
    public Builder token(String token) {
      Objects.requireNonNull(token, "token");
      if (token.isBlank() || token.chars().anyMatch(c -> c <= ' ' || c >= 0x7f)) {
        throw new IllegalArgumentException("token must be visible ASCII without spaces");
      }
      this.token = token;
      return this;
    }

    /**
     * The app's OkHttpClient, to share its connection pool and dispatcher. The SDK derives its own
     * configuration from it and leaves it unchanged.
     */
    public Builder okHttpClient(OkHttpClient http) {
      this.http = Objects.requireNonNull(http, "http");
      return this;
    }

    /** Receives progress events. */
    public Builder listener(TranscriptionListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** Replaces {@link ResendPolicy#standard()}. */
    public Builder policy(ResendPolicy policy) {
      this.policy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /** Wall time, to read {@code Retry-After} dates. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Elapsed time in nanoseconds, for the policy's window; {@code System::nanoTime} by default.
     */
    public Builder ticker(LongSupplier ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /** Waits between attempts. */
    public Builder sleeper(Sleeper sleeper) {
      this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
      return this;
    }

    /** Draws the jitter; must be thread-safe ({@link Random} is). */
    public Builder random(Random random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    /** Runs {@link #transcribeAsync} notes; each task blocks for the note's whole life. */
    public Builder executor(Executor executor) {
      this.executor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /**
     * Other bounds for each upload's read and write timeout (by default 30 s + half the note's
     * length, clamped to [30 s, 120 s]): the timeout is {@code base} + half the note's length,
     * clamped to [{@code min}, {@code max}].
     */
    public Builder uploadTimeouts(Duration base, Duration min, Duration max) {
      return uploadTimeouts(new UploadTimeouts(base, min, max));
    }

    Builder uploadTimeouts(UploadTimeouts uploadTimeouts) {
      this.uploadTimeouts = uploadTimeouts;
      return this;
    }

    /** The client; throws NullPointerException if the base URL or token is missing. */
    public BoloClient build() {
      return new BoloClient(this);
    }

    private static void startDaemon(Runnable task) {
      Thread thread = new Thread(task, "bolo-transcribe");
      thread.setDaemon(true);
      thread.start();
    }
  }
}
