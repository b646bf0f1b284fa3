package dev.bolo.server.engine;

import dev.bolo.server.upload.AudioContent;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.ProtocolException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import okhttp3.Call;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.BufferedSink;
import okio.Okio;
import okio.Source;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP call to a transcription provider within the note's deadline, for every engine that calls
 * one: the answer's bytes charged to the gateway's answer budget while it is read, and every way
 * the call can fail without an answer mapped to an {@link EngineResult} (unreachable, timed out,
 * cut off, not HTTP, too large, no room in the gateway's answer budget) here and nowhere else; an
 * engine words the sentences a phone reads ({@link Wording}), never the decision. Stateless.
 */
public final class ProviderCall {

  private static final Logger log = LoggerFactory.getLogger(ProviderCall.class);

  /** Reads a provider's HTTP answer, whatever its status, into what the engine makes of it. */
  @FunctionalInterface
  public interface Reader<T> {
    T read(Response response) throws IOException;
  }

  /**
   * The sentences a phone reads when a call fails before an answer could be read; which failure it
   * is, and so its status and whether a breaker counts it, is decided here alone.
   */
  public interface Wording {
    /** No connection could be made. */
    String unreachable();

    /** No answer came within {@code timeout}. */
    String timedOut(Duration timeout);

    /** The connection broke before the answer was read. */
    String broken();

    /** What came back was not HTTP. */
    String notHttp();

    /** The words for a provider a phone knows only as the transcription provider. */
    Wording ANY_PROVIDER =
        new Wording() {
          @Override
          public String unreachable() {
            return "the transcription provider cannot be reached";
          }

          @Override
          public String timedOut(Duration timeout) {
            return "the provider did not answer within " + seconds(timeout);
          }

          @Override
          public String broken() {
            return "the connection to the transcription provider failed";
          }

          @Override
          public String notHttp() {
            return "the transcription provider's answer was not HTTP";
          }
        };
  }

  private ProviderCall() {}

  /**
   * Calls {@code request} on {@code http} within {@code timeout} and reads the answer with {@code
   * reader}; {@code where} names the provider in logs.
   */
  public static EngineResult execute(
      OkHttpClient http,
      Request request,
      Duration timeout,
      String where,
      Reader<EngineResult> reader) {
    return exchange(http, request, timeout, where, Wording.ANY_PROVIDER, reader, f -> f);
  }

  /**
   * Calls {@code request} on {@code http} within {@code timeout}: what {@code reader} made of the
   * answer, or what {@code failed} makes of the failure when no answer could be read.
   *
   * @param where names the provider in logs
   * @param wording the sentences a phone reads for each failure
   */
  public static <T> T exchange(
      OkHttpClient http,
      Request request,
      Duration timeout,
      String where,
      Wording wording,
      Reader<T> reader,
      Function<EngineResult.Failure, T> failed) {
    // The answer's bytes stay charged to the gateway's answer budget until it is read.
    try (AnswerBudget.Hold hold = new AnswerBudget.Hold(timeout)) {
      Call call =
          HttpDeadline.newCall(
              http, request.newBuilder().tag(AnswerBudget.Hold.class, hold).build(), timeout);
      try (Response response = call.execute()) {
        return reader.read(response);
      } catch (IOException e) {
        return failed.apply(failureFor(e, http, timeout, where, wording));
      }
    }
  }

  /** What a call that ended in {@code e} before its answer was read is. */
  private static EngineResult.Failure failureFor(
      IOException e, OkHttpClient http, Duration timeout, String where, Wording wording) {
    if (Thread.currentThread().isInterrupted()) {
      // The caller is being shut down, or its work stopped (a cancelled job), not timed out: on a
      // virtual thread the interrupt closes the socket, so any failure may stand for it. The flag
      // stays set for the caller to see.
      return new EngineResult.Unavailable("transcription interrupted", null);
    }
    if (e instanceof ProtocolException) {
      // What the connection held was not an answer: bytes an earlier answer left behind, say.
      http.connectionPool().evictAll();
      log.warn("{} answered outside HTTP: {}", where, e.toString());
      return new EngineResult.Failed(wording.notHttp());
    }
    if (e instanceof AnswerBudget.Exhausted) {
      // The gateway's own bound, not the provider's trouble: no breaker counts it.
      log.warn("no room for the answer of {}: {}", where, e.getMessage());
      return new EngineResult.Saturated(
          "the gateway is busy reading other large provider answers", AnswerBudget.RETRY_AFTER);
    }
    if (e instanceof AnswerLimit.AnswerTooLargeException) {
      log.warn("the answer of {} was cut off: {}", where, e.getMessage());
      return new EngineResult.Failed(
          Objects.requireNonNullElse(e.getMessage(), "provider answer too large"));
    }
    if (e instanceof InterruptedIOException) {
      // OkHttp's call timeout and its socket timeouts both end so.
      return new EngineResult.TimedOut(wording.timedOut(timeout));
    }
    if (e instanceof UnknownHostException || e instanceof ConnectException) {
      log.warn("cannot reach {}: {}", where, e.toString());
      return new EngineResult.Unavailable(wording.unreachable(), null);
    }
    log.warn("the connection to {} failed: {}", where, e.toString());
    return new EngineResult.Failed(wording.broken());
  }

  /** The note as a request body, streamed from memory or its spool file, never copied. */
  public static RequestBody audioBody(AudioContent audio) {
    return audioBody(audio, MediaType.get(audio.container().mediaType()));
  }

  /** The note as a request body of media type {@code type}, streamed, never copied. */
  public static RequestBody audioBody(AudioContent audio, MediaType type) {
    return new RequestBody() {
      @Override
      public MediaType contentType() {
        return type;
      }

      @Override
      public long contentLength() {
        return audio.size();
      }

      @Override
      public void writeTo(BufferedSink sink) throws IOException {
        try (InputStream in = audio.open();
            Source source = Okio.source(in)) {
          sink.writeAll(source);
        }
      }
    };
  }

  private static String seconds(Duration timeout) {
    return timeout.toMillis() % 1000 == 0
        ? timeout.toSeconds() + " s"
        : String.format(Locale.ROOT, "%.1f s", timeout.toMillis() / 1000.0);
  }
}
