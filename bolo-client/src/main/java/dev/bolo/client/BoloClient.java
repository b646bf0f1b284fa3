package dev.bolo.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import org.jspecify.annotations.Nullable;

/**
 * Uploads voice notes to a Bolo gateway's {@code POST /v1/transcriptions} and resends them under a
 * {@link ResendPolicy} when, and only when, a resend can help.
 *
 * <p>Every attempt of a note carries the same {@code Idempotency-Key} and {@code
 * X-Bolo-Audio-Sha256}, so the gateway transcribes and charges the note once however many copies
 * arrive, and a fresh {@code X-Bolo-Request-Id} ending in the attempt number.
 *
 * <p>A note of {@link Builder#resumableThreshold 256 KiB} or more is sent as a tus 1.0.0 resumable
 * upload ({@code /v1/uploads}): when the link breaks during the upload, the attempt asks the
 * gateway how far it got and goes on from there instead of starting over. A resume is part of the
 * attempt it continues, as long as each resume moves the gateway's offset forward (at most 32 per
 * attempt); otherwise the attempt ends and the policy decides, and the next attempt picks the same
 * upload up again. A gateway without {@code /v1/uploads} (404 or 405) gets the plain POST, for this
 * and every later note of the client.
 *
 * <p>Each step is an asynchronous OkHttp call ({@code enqueue}); pauses wait on a timer, so a note
 * holds no thread of its own. Notes are queued by OkHttp's dispatcher like the app's other calls.
 * OkHttp never sends a note again by itself: every resend is the policy's.
 *
 * <p>Thread-safe: one client serves any number of notes at once. It holds no resources of its own
 * beyond the {@link OkHttpClient} it was given (or a default one).
 */
public final class BoloClient {

  static final String TRANSCRIPTIONS_PATH = "v1/transcriptions";

  /** Notes this large or larger are sent resumably unless the builder says otherwise. */
  public static final long DEFAULT_RESUMABLE_THRESHOLD_BYTES = 256 * 1024;

  private final HttpUrl endpoint;
  private final HttpUrl uploads;
  private final String token;
  private final OkHttpClient http;
  private final Timing timing;
  private final ResendPolicy policy;
  private final TranscriptionListener listener;
  private final Resender resender;
  private final boolean lookupBeforeResend;
  private final UploadTimeouts uploadTimeouts;
  private final long resumableThreshold;
  private final RunningWorkLimits runningWork;
  private final JobCalls jobs;
  private final TraceHeaders traceHeaders;

  /** False once the gateway answered a creation with 404 or 405: it has no resumable uploads. */
  private final AtomicBoolean gatewayHasUploads = new AtomicBoolean(true);

  private BoloClient(Builder builder) {
    this.endpoint =
        Objects.requireNonNull(builder.baseUrl, "baseUrl")
            .newBuilder()
            .addPathSegments(TRANSCRIPTIONS_PATH)
            .build();
    this.uploads = builder.baseUrl.newBuilder().addPathSegments(TusUpload.UPLOADS_PATH).build();
    this.token = Objects.requireNonNull(builder.token, "token");
    // Our own resend policy decides every attempt: OkHttp's silent retry would hide attempts.
    this.http =
        builder
            .http
            .newBuilder()
            .retryOnConnectionFailure(false)
            .addInterceptor(builder.uploadTimeouts)
            .build();
    this.timing = builder.timing;
    this.policy = builder.policy;
    this.listener = builder.listener;
    this.resender = new Resender(timing.ticker(), timing.scheduler(), timing.random());
    this.lookupBeforeResend = builder.lookupBeforeResend;
    this.uploadTimeouts = builder.uploadTimeouts;
    this.resumableThreshold = builder.resumableUploads ? builder.resumableThreshold : 0;
    this.runningWork =
        new RunningWorkLimits(
            builder.runningWorkBase, builder.runningWorkMax, builder.stalledWorkTimeout);
    this.traceHeaders = builder.traceHeaders;
    this.jobs =
        new JobCalls(http, token, builder.baseUrl, timing, policy, uploadTimeouts, traceHeaders);
  }

  /** A builder; {@link Builder#baseUrl} and {@link Builder#token} are required. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * {@link #transcribe(VoiceNote, TranscriptionOptions, CallOptions)} with the client's settings.
   */
  public Outcome transcribe(VoiceNote note, TranscriptionOptions options) {
    return transcribe(note, options, CallOptions.defaults());
  }

  /**
   * Transcribes {@code note}, resending as the policy allows, and waits for the outcome.
   * Interrupting the waiting thread cancels the note at once (a call in flight is aborted, a pause
   * ends) and leaves the interrupt flag set; a thread already interrupted starts no attempt.
   *
   * <p>Only the documented {@link Outcome}s come back; nothing the gateway, the network or the note
   * does makes this throw.
   */
  public Outcome transcribe(VoiceNote note, TranscriptionOptions options, CallOptions call) {
    CancelFlag flag = new CancelFlag();
    // An interrupted thread wants no new work: the note ends before its first attempt.
    if (Thread.currentThread().isInterrupted()) {
      flag.cancel();
    }
    CompletableFuture<Outcome> outcome = new CompletableFuture<>();
    start(note, options, call, flag, outcome);
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return outcome.get();
        } catch (InterruptedException e) {
          // Whoever interrupted us wants this thread back: cancel, which ends the note promptly.
          interrupted = true;
          flag.cancel();
        } catch (ExecutionException bug) {
          throw new IllegalStateException("transcription failed", bug.getCause());
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** {@link #transcribeAsync(VoiceNote, TranscriptionOptions, CallOptions)} with defaults. */
  public TranscriptionHandle transcribeAsync(VoiceNote note, TranscriptionOptions options) {
    return transcribeAsync(note, options, CallOptions.defaults());
  }

  /**
   * Starts transcribing {@code note} and returns at once with a handle to its outcome and to cancel
   * it. No thread is held for the note: its calls run on OkHttp's dispatcher and its pauses on the
   * {@link Timing}'s scheduler.
   */
  public TranscriptionHandle transcribeAsync(
      VoiceNote note, TranscriptionOptions options, CallOptions call) {
    CancelFlag flag = new CancelFlag();
    TranscriptionHandle.OutcomeFuture outcome = new TranscriptionHandle.OutcomeFuture(flag);
    String noteKey = start(note, options, call, flag, outcome);
    return new TranscriptionHandle(noteKey, flag, outcome);
  }

  /**
   * Hands {@code note} over as a job ({@code POST /v1/jobs}) and waits only until the gateway has
   * stored it: {@link JobOutcome.Answered} holds the {@code queued} job (or the job already made
   * with {@link CallOptions#idempotencyKey}). Resent under the policy with the same {@code
   * Idempotency-Key}, so a lost answer never makes a second job. Blocks the calling thread;
   * interrupting it cancels the call. Nothing the gateway or the network does makes it throw.
   */
  public JobOutcome<Job> submitJob(
      VoiceNote note, TranscriptionOptions options, JobOptions job, CallOptions call) {
    return jobs.submit(note, options, job, call);
  }

  /** A job of the device's finished resumable upload {@code uploadId}; as {@link #submitJob}. */
  public JobOutcome<Job> submitJob(String uploadId, JobOptions job, CallOptions call) {
    return jobs.submitUpload(uploadId, job, call);
  }

  /** The device's job {@code id} ({@code GET /v1/jobs/{id}}); another device's is 404. */
  public JobOutcome<Job> job(String id) {
    return jobs.find(id);
  }

  /** The device's jobs, newest first: of {@code status} (null: any), older than {@code after}. */
  public JobOutcome<JobList> jobs(Job.@Nullable Status status, @Nullable String after) {
    return jobs.list(status, after);
  }

  /** Cancels the job {@code id} unless it ended ({@code DELETE /v1/jobs/{id}}); not charged. */
  public JobOutcome<Job> cancelJob(String id) {
    return jobs.cancel(id);
  }

  private String start(
      VoiceNote note,
      TranscriptionOptions options,
      CallOptions call,
      CancelFlag flag,
      CompletableFuture<Outcome> outcome) {
    Objects.requireNonNull(note, "note");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(call, "call");
    String noteKey =
        call.idempotencyKey() != null ? call.idempotencyKey() : UUID.randomUUID().toString();
    List<TranscriptionListener> listeners = new ArrayList<>(2);
    listeners.add(listener);
    if (call.listener() != null) {
      listeners.add(call.listener());
    }
    NoteRequests requests =
        new NoteRequests(
            TracedCalls.carrying(http, traceHeaders),
            token,
            timing.clock(),
            note,
            options,
            call.attemptTimeout(),
            uploadTimeouts.timeoutOf(note, call.attemptTimeout()),
            listeners,
            flag,
            timing.scheduler());
    Uploader uploader =
        new Uploader(
            requests,
            endpoint,
            lookupBeforeResend,
            // Large enough, and resumption on: a resumable upload.
            resumableThreshold > 0 && note.size() >= resumableThreshold ? uploads : null,
            gatewayHasUploads,
            new RunningWork(requests, timing.ticker(), runningWork));
    ResendPolicy chosen = call.policy() != null ? call.policy() : policy;
    resender.start(noteKey, chosen, listeners, flag, uploader, outcome);
    return noteKey;
  }

  /**
   * Configures a {@link BoloClient}. Not thread-safe; build once and share the client.
   *
   * <p>Defaults: a new {@link OkHttpClient}, no listener, {@link ResendPolicy#standard()}, {@link
   * Timing#system()}, and read and write timeouts of 30 s plus half the note's length, clamped to
   * [30 s, 120 s].
   */
  public static final class Builder {
    private @Nullable HttpUrl baseUrl;
    private @Nullable String token;
    private OkHttpClient http = new OkHttpClient();
    private TranscriptionListener listener = TranscriptionListener.NONE;
    private ResendPolicy policy = ResendPolicy.standard();
    private Timing timing = Timing.system();
    private UploadTimeouts uploadTimeouts = new UploadTimeouts();
    private boolean lookupBeforeResend = true;
    private long resumableThreshold = DEFAULT_RESUMABLE_THRESHOLD_BYTES;
    private boolean resumableUploads = true;
    private Duration runningWorkBase = RunningWorkLimits.DEFAULTS.base();
    private Duration runningWorkMax = RunningWorkLimits.DEFAULTS.max();
    private Duration stalledWorkTimeout = RunningWorkLimits.DEFAULTS.stalledAfter();
    private TraceHeaders traceHeaders = TraceHeaders.none();

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
     * configuration from it and leaves it unchanged; cancelling the app's calls through its
     * dispatcher cancels the notes in flight too.
     */
    public Builder okHttpClient(OkHttpClient http) {
      this.http = Objects.requireNonNull(http, "http");
      return this;
    }

    /** Receives every note's events; {@link CallOptions#withListener} adds one per note. */
    public Builder listener(TranscriptionListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** Replaces {@link ResendPolicy#standard()}. */
    public Builder policy(ResendPolicy policy) {
      this.policy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /** Replaces the system clock, timer and randomness (for tests). */
    public Builder timing(Timing timing) {
      this.timing = Objects.requireNonNull(timing, "timing");
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

    /**
     * Whether a resend first asks the gateway for the note's finished transcript ({@code GET
     * /v1/transcriptions/{sha256}}) and uploads only when it has none; on by default. Off, every
     * resend uploads the whole note again (for comparisons, or a gateway behind a proxy that
     * refuses GET).
     */
    public Builder lookupBeforeResend(boolean lookupBeforeResend) {
      this.lookupBeforeResend = lookupBeforeResend;
      return this;
    }

    /**
     * Notes of at least this many bytes are sent as resumable uploads; 256 KiB by default. 0 sends
     * every note whole, as {@link #resumableUploads resumableUploads(false)} does. Below a few
     * hundred kilobytes a resume saves less than its extra round trips cost.
     */
    public Builder resumableThreshold(long bytes) {
      if (bytes < 0) {
        throw new IllegalArgumentException("resumableThreshold must be >= 0: " + bytes);
      }
      this.resumableThreshold = bytes;
      return this;
    }

    /**
     * Whether large notes are sent as resumable uploads (tus 1.0.0 at {@code /v1/uploads}); on by
     * default. Off, every note goes whole to {@code POST /v1/transcriptions} and a broken link
     * costs the whole note again (for comparisons, or a proxy that passes only that POST).
     */
    public Builder resumableUploads(boolean resumableUploads) {
      this.resumableUploads = resumableUploads;
      return this;
    }

    /**
     * How long a note waits, in all, while the gateway answers that its work still runs (202 {@code
     * running}, from the lookup or a resumable upload's transcription): {@code base} plus the
     * note's length, at most {@code max} (at most {@code max} when its length is unknown). By
     * default 120 s and 15 min, the gateway's own deadline for a note's engine call ({@code
     * BOLO_UPSTREAM_TIMEOUT}, {@code BOLO_UPSTREAM_TIMEOUT_MAX}, PROTOCOL.md rule 7): waiting
     * longer gains nothing. Waiting is not an attempt: it adds no resend and no pause of the
     * policy. When the wait is over the note ends {@link Outcome.GaveUp} ({@code HTTP 202
     * running}).
     */
    public Builder runningWorkWait(Duration base, Duration max) {
      RunningWorkLimits checked = new RunningWorkLimits(base, max, stalledWorkTimeout);
      this.runningWorkBase = checked.base();
      this.runningWorkMax = checked.max();
      return this;
    }

    /**
     * The wait for running work ends early when the gateway reports {@code seconds_done} and it has
     * not grown in 3 answers in a row over at least {@code timeout}: 3 min by default. A gateway
     * that reports no progress at all is waited for up to {@link #runningWorkWait}.
     */
    public Builder stalledWorkTimeout(Duration timeout) {
      this.stalledWorkTimeout =
          new RunningWorkLimits(runningWorkBase, runningWorkMax, timeout).stalledAfter();
      return this;
    }

    /** The app's current trace, sent with each note and job call ({@link TraceHeaders}). */
    public Builder traceHeaders(TraceHeaders traceHeaders) {
      this.traceHeaders = Objects.requireNonNull(traceHeaders, "traceHeaders");
      return this;
    }

    /** The client; throws NullPointerException if the base URL or token is missing. */
    public BoloClient build() {
      return new BoloClient(this);
    }
  }
}
