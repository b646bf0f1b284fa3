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
 * cut off, not HTTP, too large). Stateless.
 */
public final class ProviderCall {

  private static final Logger log = LoggerFactory.getLogger(ProviderCall.class);

  /** Reads a provider's HTTP answer, whatever its status, into the engine's result. */
  @FunctionalInterface
  public interface Reader {
    EngineResult read(Response response) throws IOException;
  }

  private ProviderCall() {}

  /**
   * Calls {@code request} on {@code http} within {@code timeout} and reads the answer with {@code
   * reader}; {@code where} names the provider in logs.
   */
  public static EngineResult execute(
      OkHttpClient http, Request request, Duration timeout, String where, Reader reader) {
    // The answer's bytes stay charged to the gateway's answer budget until it is parsed.
    try (AnswerBudget.Hold hold = new AnswerBudget.Hold(timeout)) {
      Call call =
          HttpDeadline.newCall(
              http, request.newBuilder().tag(AnswerBudget.Hold.class, hold).build(), timeout);
      try (Response response = call.execute()) {
        return reader.read(response);
      } catch (ProtocolException e) {
        // What the connection held was not an answer: bytes an earlier answer left behind, say.
        http.connectionPool().evictAll();
        log.warn("transcription provider answered outside HTTP: {}", e.toString());
        return new EngineResult.Failed("the transcription provider's answer was not HTTP");
      } catch (AnswerBudget.Exhausted e) {
        log.warn("no room for the transcription provider's answer: {}", e.getMessage());
        // The gateway's own bound, not the provider's trouble: no breaker counts it.
        return new EngineResult.Saturated(
            "the gateway is busy reading other large provider answers", AnswerBudget.RETRY_AFTER);
      } catch (AnswerLimit.AnswerTooLargeException e) {
        log.warn("the transcription provider's answer was cut off: {}", e.getMessage());
        return new EngineResult.Failed(
            Objects.requireNonNullElse(e.getMessage(), "provider answer too large"));
      } catch (InterruptedIOException e) {
        if (call.isCanceled() && Thread.currentThread().isInterrupted()) {
          return new EngineResult.Unavailable("transcription interrupted", null);
        }
        return new EngineResult.TimedOut("the provider did not answer within " + seconds(timeout));
      } catch (UnknownHostException | ConnectException e) {
        log.warn("cannot reach the transcription provider at {}: {}", where, e.toString());
        return new EngineResult.Unavailable("the transcription provider cannot be reached", null);
      } catch (IOException e) {
        log.warn("transcription provider connection failed: {}", e.toString());
        return new EngineResult.Failed("the connection to the transcription provider failed");
      }
    }
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
