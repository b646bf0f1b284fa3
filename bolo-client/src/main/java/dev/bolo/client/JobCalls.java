package dev.bolo.client;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.MultipartBody;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;

/**
 * The calls about jobs ({@code /v1/jobs}, PROTOCOL v4), each made on the calling thread and resent
 * under the {@link ResendPolicy} as a note is ({@link Resender#waitBeforeResend}): a submission
 * carries one {@code Idempotency-Key} on every attempt, so a resend after a lost answer finds the
 * job made the first time instead of making another. Thread-safe: it keeps nothing between calls.
 */
final class JobCalls {

  static final String JOBS_PATH = "v1/jobs";

  private static final MediaType JSON = MediaType.get("application/json; charset=utf-8");

  /** What one attempt came to. */
  private sealed interface Step<T> {}

  private record Done<T>(JobOutcome<T> outcome) implements Step<T> {}

  private record Failed<T>(Failure failure) implements Step<T> {}

  /** One attempt's request, and its audio when it carries a note. */
  private record Outgoing(Request request, @Nullable NoteBody audio) {}

  private final OkHttpClient http;
  private final String token;
  private final HttpUrl jobs;
  private final Timing timing;
  private final ResendPolicy policy;
  private final UploadTimeouts uploadTimeouts;
  private final TraceHeaders traceHeaders;

  JobCalls(
      OkHttpClient http,
      String token,
      HttpUrl baseUrl,
      Timing timing,
      ResendPolicy policy,
      UploadTimeouts uploadTimeouts,
      TraceHeaders traceHeaders) {
    this.http = http;
    this.token = token;
    this.jobs = baseUrl.newBuilder().addPathSegments(JOBS_PATH).build();
    this.timing = timing;
    this.policy = policy;
    this.uploadTimeouts = uploadTimeouts;
    this.traceHeaders = traceHeaders;
  }

  /** {@code POST /v1/jobs} with the note as the form {@code POST /v1/transcriptions} takes. */
  JobOutcome<Job> submit(
      VoiceNote note, TranscriptionOptions options, JobOptions job, CallOptions call) {
    Objects.requireNonNull(note, "note");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(job, "job");
    Duration timeout = uploadTimeouts.timeoutOf(note, call.attemptTimeout());
    return run(
        call,
        note,
        attempt -> {
          NoteBody audio = new NoteBody(note, (sent, all) -> {});
          MultipartBody.Builder form =
              new MultipartBody.Builder()
                  .setType(MultipartBody.FORM)
                  .addFormDataPart("audio", note.fileName(), audio);
          addIfPresent(form, "language", options.language());
          addIfPresent(form, "model", options.model());
          addIfPresent(form, "prompt", options.prompt());
          addIfPresent(form, "webhook_url", job.webhookUrl());
          if (!job.metadata().isEmpty()) {
            form.addFormDataPart("metadata", metadataJson(job.metadata()));
          }
          Request.Builder request =
              submission(attempt)
                  .header("X-Bolo-Audio-Sha256", note.sha256())
                  .tag(UploadTimeouts.Fixed.class, new UploadTimeouts.Fixed(timeout))
                  .post(new OneShotBody(form.build()));
          if (note.durationMs().isPresent()) {
            request.header(
                UploadTimeouts.DURATION_HEADER, Long.toString(note.durationMs().getAsLong()));
          }
          return new Outgoing(request.build(), audio);
        },
        JobReader::jobFrom);
  }

  /** {@code POST /v1/jobs} naming the device's finished resumable upload. */
  JobOutcome<Job> submitUpload(String uploadId, JobOptions job, CallOptions call) {
    Objects.requireNonNull(uploadId, "uploadId");
    Objects.requireNonNull(job, "job");
    StringBuilder body = new StringBuilder("{\"upload_id\":").append(Json.quote(uploadId));
    if (job.webhookUrl() != null) {
      body.append(",\"webhook_url\":").append(Json.quote(job.webhookUrl()));
    }
    body.append(",\"metadata\":").append(metadataJson(job.metadata())).append('}');
    RequestBody json = RequestBody.create(body.toString(), JSON);
    return run(
        call,
        null,
        attempt -> new Outgoing(submission(attempt).post(json).build(), null),
        JobReader::jobFrom);
  }

  /** {@code GET /v1/jobs/{id}}. */
  JobOutcome<Job> find(String id) {
    HttpUrl url = one(id);
    return run(
        CallOptions.defaults(),
        null,
        attempt -> new Outgoing(request(attempt).url(url).get().build(), null),
        JobReader::jobFrom);
  }

  /** {@code GET /v1/jobs?status=&after=}. */
  JobOutcome<JobList> list(Job.@Nullable Status status, @Nullable String after) {
    HttpUrl.Builder url = jobs.newBuilder();
    if (status != null) {
      url.addQueryParameter("status", status.wireName());
    }
    if (after != null) {
      url.addQueryParameter("after", after);
    }
    HttpUrl page = url.build();
    return run(
        CallOptions.defaults(),
        null,
        attempt -> new Outgoing(request(attempt).url(page).get().build(), null),
        JobReader::listFrom);
  }

  /** {@code DELETE /v1/jobs/{id}}: cancelling twice is cancelling once, so it is resent too. */
  JobOutcome<Job> cancel(String id) {
    HttpUrl url = one(id);
    return run(
        CallOptions.defaults(),
        null,
        attempt -> new Outgoing(request(attempt).url(url).delete().build(), null),
        JobReader::jobFrom);
  }

  private HttpUrl one(String id) {
    Objects.requireNonNull(id, "id");
    if (id.isBlank()) {
      throw new IllegalArgumentException("a job id must not be blank: '" + id + "'");
    }
    return jobs.newBuilder().addPathSegment(id).build();
  }

  private Request.Builder submission(Attempt attempt) {
    // An sf-string, as the IETF httpapi Idempotency-Key draft defines the field.
    return request(attempt)
        .url(jobs)
        .header("Idempotency-Key", "\"" + attempt.idempotencyKey() + "\"");
  }

  private Request.Builder request(Attempt attempt) {
    return new Request.Builder()
        .header("Authorization", "Bearer " + token)
        .header("X-Bolo-Request-Id", attempt.requestId());
  }

  /**
   * Makes the call's attempts until one is answered, refused, or the policy stops resending.
   *
   * @param note the note whose audio is checked before each attempt; null for none
   */
  private <T> JobOutcome<T> run(
      CallOptions call,
      @Nullable VoiceNote note,
      Function<Attempt, Outgoing> requestFor,
      Function<Map<?, ?>, @Nullable T> reader) {
    ResendPolicy chosen = call.policy() != null ? call.policy() : policy;
    String key =
        call.idempotencyKey() != null ? call.idempotencyKey() : UUID.randomUUID().toString();
    long start = timing.ticker().getAsLong();
    // The app's trace, asked on its own thread (this one): every attempt carries it.
    OkHttpClient traced = TracedCalls.carrying(http, traceHeaders);
    for (int number = 1; ; number++) {
      // An interrupted thread wants no new work.
      if (Thread.currentThread().isInterrupted()) {
        return new JobOutcome.Cancelled<>(number - 1);
      }
      String unusable = note == null ? null : unusable(note);
      if (unusable != null) {
        return new JobOutcome.Unreadable<>(unusable, number - 1);
      }
      Attempt attempt = new Attempt(key, number, UUID.randomUUID() + "-a" + number);
      Step<T> step = exchange(traced, requestFor.apply(attempt), reader, number);
      if (step == null) {
        return new JobOutcome.Cancelled<>(number);
      }
      if (step instanceof Done<T> done) {
        return done.outcome();
      }
      Failure failure = ((Failed<T>) step).failure();
      Duration elapsed = Duration.ofNanos(timing.ticker().getAsLong() - start);
      Duration wait = Resender.waitBeforeResend(chosen, timing.random(), number, failure, elapsed);
      if (wait == null) {
        return failure instanceof Failure.Http error && !chosen.isTransient(error)
            ? new JobOutcome.Refused<>(error, number)
            : new JobOutcome.GaveUp<>(failure, number);
      }
      if (!pause(wait)) {
        return new JobOutcome.Cancelled<>(number);
      }
    }
  }

  /** Why the note cannot be sent as it was hashed, or null when it can. */
  private static @Nullable String unusable(VoiceNote note) {
    if (!note.canChange()) {
      return null;
    }
    try {
      String now = note.changedHash();
      return now == null
          ? null
          : "the audio changed after the note was made (SHA-256 "
              + note.sha256()
              + " then, "
              + now
              + " now); nothing was sent";
    } catch (IOException | RuntimeException unreadable) {
      return NetworkFailures.describe(unreadable);
    }
  }

  /** One attempt's ending; null when the waiting thread was interrupted (the call is cancelled). */
  private <T> @Nullable Step<T> exchange(
      OkHttpClient http, Outgoing outgoing, Function<Map<?, ?>, @Nullable T> reader, int number) {
    CompletableFuture<Step<T>> ended = new CompletableFuture<>();
    Call call;
    try {
      call = http.newCall(outgoing.request());
    } catch (RuntimeException rejected) {
      // An app interceptor or event listener factory that throws: nothing was sent.
      return new Failed<>(
          new Failure.Network(Failure.NetworkKind.PROTOCOL, NetworkFailures.describe(rejected)));
    }
    call.enqueue(
        new Callback() {
          @Override
          public void onFailure(Call broken, IOException e) {
            ended.complete(failedStep(outgoing, e, number));
          }

          @Override
          public void onResponse(Call answered, Response response) {
            try (response) {
              ended.complete(read(response, reader, number));
            } catch (IOException e) {
              ended.complete(failedStep(outgoing, e, number));
            } catch (RuntimeException bug) {
              ended.complete(
                  new Failed<>(
                      new Failure.Network(
                          Failure.NetworkKind.PROTOCOL, NetworkFailures.describe(bug))));
            }
          }
        });
    try {
      return ended.get();
    } catch (InterruptedException e) {
      call.cancel();
      Thread.currentThread().interrupt();
      return null;
    } catch (ExecutionException bug) {
      throw new IllegalStateException("a job call failed", bug.getCause());
    }
  }

  private static <T> Step<T> failedStep(Outgoing outgoing, IOException e, int number) {
    // A note that could not be read looks like a broken link to OkHttp; tell them apart.
    IOException unreadable = outgoing.audio() == null ? null : outgoing.audio().readFailure();
    if (unreadable != null) {
      return new Done<>(new JobOutcome.Unreadable<>(NetworkFailures.describe(unreadable), number));
    }
    return new Failed<>(NetworkFailures.classify(e));
  }

  private <T> Step<T> read(Response response, Function<Map<?, ?>, @Nullable T> reader, int number)
      throws IOException {
    int status = response.code();
    // OkHttp accepts any three digits; a status below 100 is not HTTP as the gateway speaks it.
    if (status < 100) {
      return new Failed<>(
          new Failure.Network(Failure.NetworkKind.PROTOCOL, "invalid HTTP status " + status));
    }
    Map<?, ?> json = AnswerReader.bodyOf(response);
    if (status < 200 || status >= 300) {
      return new Failed<>(AnswerReader.errorOf(response, json, timing.clock()));
    }
    T answer = json == null ? null : reader.apply(json);
    if (answer == null) {
      return new Done<>(
          new JobOutcome.Refused<>(
              new Failure.Http(
                  status,
                  "invalid_response",
                  "the gateway's answer is not what /v1/jobs answers",
                  response.header("X-Bolo-Request-Id"),
                  null),
              number));
    }
    boolean replayed = "true".equalsIgnoreCase(response.header("Idempotent-Replayed"));
    return new Done<>(new JobOutcome.Answered<>(answer, replayed, number));
  }

  /** Waits {@code wait} on the timing's scheduler; false when the thread was interrupted. */
  private boolean pause(Duration wait) {
    CompletableFuture<@Nullable Void> over = new CompletableFuture<>();
    Scheduler.Pending pending = timing.scheduler().schedule(wait, () -> over.complete(null));
    try {
      over.get();
      return true;
    } catch (InterruptedException e) {
      pending.cancel();
      Thread.currentThread().interrupt();
      return false;
    } catch (ExecutionException bug) {
      throw new IllegalStateException("a pause failed", bug.getCause());
    }
  }

  private static String metadataJson(Map<String, String> metadata) {
    StringBuilder json = new StringBuilder("{");
    metadata.forEach(
        (name, value) ->
            json.append(json.length() > 1 ? "," : "")
                .append(Json.quote(name))
                .append(':')
                .append(Json.quote(value)));
    return json.append('}').toString();
  }

  private static void addIfPresent(
      MultipartBody.Builder form, String name, @Nullable String value) {
    if (value != null) {
      form.addFormDataPart(name, value);
    }
  }
}
