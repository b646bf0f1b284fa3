package dev.bolo.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bolo.server.engine.Renditions;
import dev.bolo.server.engine.ResponseFormat;
import dev.bolo.server.transcription.Transcriber;
import dev.bolo.server.work.KeptTranscript;
import dev.bolo.server.work.WorkResult;
import io.javalin.http.Context;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Answers {@code stream=true} on the OpenAI-compatible endpoint with OpenAI's transcription events
 * as server-sent events: {@code transcript.text.delta} for each piece of text as the work produces
 * it, then one {@code transcript.text.done} with the whole text. Work that does not stream (other
 * engines, a replay) sends the whole text as one delta, then the done event.
 *
 * <p>The response is committed at the first piece of text: an error known before it (401, 402, 413,
 * 415, 422, …) is an ordinary JSON error with its status; one after it (a provider stream that
 * broke) is an {@code error} event, and nothing of it is kept or charged.
 */
final class TranscriptStream {

  private static final Logger log = LoggerFactory.getLogger(TranscriptStream.class);
  private static final ObjectMapper JSON = HttpJson.MAPPER;

  /** What the transcribing thread reports to the request thread, in order. */
  private sealed interface Event {
    record Joining(boolean joined) implements Event {}

    record Delta(String text) implements Event {}

    record Finished(Transcriber.Answer answer) implements Event {}

    record Crashed(Throwable cause) implements Event {}
  }

  private final Context ctx;
  private final String requestId;
  private final String model;
  private final ResponseFormat format;
  private boolean started;
  private boolean anyDelta;
  private boolean clientGone;

  private TranscriptStream(Context ctx, String requestId, String model, ResponseFormat format) {
    this.ctx = ctx;
    this.requestId = requestId;
    this.model = model;
    this.format = format;
  }

  /**
   * Transcribes {@code call} on a virtual thread and streams its text to the client; returns when
   * the work has answered, so the caller may then release the upload.
   */
  static void answer(Context ctx, String requestId, Transcriber transcriber, Transcriber.Note call)
      throws IOException, InterruptedException {
    BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    @Nullable Map<String, String> context = MDC.getCopyOfContextMap();
    Thread worker =
        Thread.ofVirtual()
            .name("stream-" + requestId)
            .start(
                () -> {
                  if (context != null) {
                    MDC.setContextMap(context);
                  }
                  try {
                    events.add(
                        new Event.Finished(
                            transcriber.transcribe(
                                call,
                                delta -> events.add(new Event.Delta(delta)),
                                joined -> events.add(new Event.Joining(joined)))));
                  } catch (InterruptedException | RuntimeException | Error e) {
                    events.add(new Event.Crashed(e));
                  } finally {
                    MDC.clear();
                  }
                });
    TranscriptStream stream =
        new TranscriptStream(ctx, requestId, call.settings().model(), call.responseFormat());
    boolean joined = false;
    while (true) {
      Event event;
      try {
        event = events.take();
      } catch (InterruptedException e) {
        // The upload must outlive the transcribing thread's use of it: stop that thread first.
        worker.interrupt();
        worker.join();
        throw e;
      }
      switch (event) {
        case Event.Joining joining -> joined = joining.joined();
        case Event.Delta delta -> stream.delta(delta.text(), joined);
        case Event.Finished finished -> {
          stream.finish(finished.answer());
          return;
        }
        case Event.Crashed crashed -> {
          stream.crash(crashed.cause());
          return;
        }
      }
    }
  }

  private void delta(String text, boolean replayed) {
    start(replayed);
    anyDelta = true;
    ObjectNode event = JSON.createObjectNode();
    event.put("type", "transcript.text.delta");
    event.put("delta", text);
    send(null, event);
  }

  private void finish(Transcriber.Answer answer) throws IOException {
    switch (answer.outcome()) {
      case WorkResult.Success success -> {
        KeptTranscript kept = success.transcript();
        String text = Renditions.text(kept.transcript(), format, kept.durationMs());
        start(answer.replayed());
        if (!anyDelta && !text.isEmpty()) {
          delta(text, answer.replayed());
        }
        ObjectNode done = JSON.createObjectNode();
        done.put("type", "transcript.text.done");
        done.put("text", text);
        TranscriptionHandler.putUsage(done, success.transcript());
        send(null, done);
      }
      case WorkResult.Refused refused -> {
        ApiError error = Errors.of(refused);
        if (!started) {
          if (answer.replayed()) {
            ctx.res().setHeader("Idempotent-Replayed", "true");
          }
          ErrorWriter.write(ctx, Dialect.OPENAI, error);
          return;
        }
        log.warn("stream ended by {}: {}", error.code(), error.message());
        sendError(error);
      }
    }
  }

  private void crash(Throwable cause) {
    log.error("streaming transcription failed unexpectedly", cause);
    if (!started) {
      ErrorWriter.write(ctx, Dialect.OPENAI, Errors.internal());
      return;
    }
    sendError(Errors.internal());
  }

  /** Commits the response as an event stream, once. */
  private void start(boolean replayed) {
    if (started) {
      return;
    }
    started = true;
    HttpServletResponse res = ctx.res();
    res.setStatus(200);
    res.setContentType("text/event-stream; charset=utf-8");
    res.setHeader("Cache-Control", "no-cache");
    // A reverse proxy (nginx) must pass each event on at once instead of buffering the answer.
    res.setHeader("X-Accel-Buffering", "no");
    // Headers go before the first event: the model is named when the stream starts.
    AnswerHeaders.nameModel(ctx, model);
    if (replayed) {
      res.setHeader("Idempotent-Replayed", "true");
    }
  }

  private void sendError(ApiError error) {
    try {
      send("error", JSON.readTree(ErrorWriter.body(Dialect.OPENAI, error, requestId)));
    } catch (IOException e) {
      throw new IllegalStateException("the error writer's JSON always parses", e);
    }
  }

  /**
   * Writes one event and flushes it. A client that hung up gets nothing more; the work goes on and
   * its result is kept for a resend.
   */
  private void send(@Nullable String name, com.fasterxml.jackson.databind.JsonNode data) {
    if (clientGone) {
      return;
    }
    try {
      StringBuilder frame = new StringBuilder();
      if (name != null) {
        frame.append("event: ").append(name).append('\n');
      }
      // JSON without line breaks fits one data line.
      frame.append("data: ").append(JSON.writeValueAsString(data)).append("\n\n");
      var out = ctx.res().getOutputStream();
      out.write(frame.toString().getBytes(StandardCharsets.UTF_8));
      out.flush();
    } catch (IOException e) {
      clientGone = true;
      log.info("client gone during the stream: {}", e.toString());
    }
  }
}
