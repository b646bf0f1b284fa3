package dev.bolo.client;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import okhttp3.HttpUrl;
import okhttp3.Request;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;

/**
 * Asks the gateway for a note's finished transcript before it is uploaded again ({@code GET
 * /v1/transcriptions/{sha256}}, PROTOCOL.md "Resends without the audio"). A resend whose answer was
 * lost on the way back then costs a few hundred bytes instead of the whole note. The lookup is part
 * of the attempt it precedes: it never adds an attempt. Thread safe.
 */
final class Lookup {

  /**
   * How long the gateway may hold a lookup for running work. A resend usually follows a read
   * timeout while the engine still works (the gateway waits for the engine longer than the phone
   * waits for it, rule 7), so waiting here often turns the resend into the answer; 20 s keeps the
   * whole lookup within the base upload timeout of 30 s.
   */
  static final Duration WAIT = Duration.ofSeconds(20);

  /** Room on top of the gateway's wait for the answer to arrive. */
  private static final Duration ANSWER_MARGIN = Duration.ofSeconds(10);

  /** What a lookup found. */
  sealed interface Answer {}

  /** The gateway has the transcript: the attempt ends with it, nothing is uploaded. */
  record Found(Transcript transcript) implements Answer {}

  /** The gateway has no transcript (or no lookup, or refused it): upload the note. */
  record Absent() implements Answer {}

  /** The link or the app ended the lookup: the attempt ends with this result. */
  record Ended(Resender.AttemptResult result) implements Answer {}

  private Lookup() {}

  /**
   * The lookup request for a note with these options, on behalf of {@code attempt}.
   *
   * @param attemptTimeout the app's per-attempt timeout, when it set one: the lookup stays within
   *     it
   */
  static Request request(
      HttpUrl endpoint,
      String token,
      String sha256,
      TranscriptionOptions options,
      Attempt attempt,
      @Nullable Duration attemptTimeout) {
    Duration timeout = attemptTimeout != null ? attemptTimeout : WAIT.plus(ANSWER_MARGIN);
    Duration wait = attemptTimeout != null ? min(WAIT, attemptTimeout.dividedBy(2)) : WAIT;
    HttpUrl.Builder url =
        endpoint
            .newBuilder()
            .addPathSegment(sha256)
            .addQueryParameter("wait", Long.toString(wait.toSeconds()));
    addIfPresent(url, "language", options.language());
    addIfPresent(url, "model", options.model());
    addIfPresent(url, "prompt", options.prompt());
    return new Request.Builder()
        .url(url.build())
        .header("Authorization", "Bearer " + token)
        .header("X-Bolo-Request-Id", attempt.requestId())
        .tag(UploadTimeouts.Fixed.class, new UploadTimeouts.Fixed(timeout))
        .get()
        .build();
  }

  /**
   * Sends the lookup, asks again while the note's work runs, and reports the answer exactly once; a
   * cancel of the note cancels it, and a failed call (a cancel, an interruption, a link failure) or
   * the end of the wait ends it as the upload's would.
   */
  static void ask(RunningWork running, Attempt attempt, Request request, Consumer<Answer> done) {
    running.ask(
        attempt,
        request,
        response -> done.accept(read(response)),
        result -> done.accept(new Ended(result)));
  }

  /** A final answer: the work is no longer running ({@link RunningWork} handles 202). */
  private static Answer read(Response response) throws IOException {
    int status = response.code();
    if (status == 200) {
      Map<?, ?> json = AnswerReader.bodyOf(response);
      Transcript transcript = json == null ? null : AnswerReader.transcriptFrom(json);
      // An answer that is not a transcript is no answer: the upload will get a real one.
      return transcript == null ? new Absent() : new Found(transcript);
    }
    // 404 says "upload it"; any other answer (a gateway without lookups, a refusal) is left to
    // the upload, whose own answer the policy then judges.
    return new Absent();
  }

  /** The {@link Failure.Http#code()} of a wait that ended while the note's work still ran. */
  static final String RUNNING = "running";

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  private static void addIfPresent(HttpUrl.Builder url, String name, @Nullable String value) {
    if (value != null) {
      url.addQueryParameter(name, value);
    }
  }
}
