package dev.bolo.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bolo.server.engine.Renditions;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.ledger.Device;
import dev.bolo.server.tracing.NoteSpans;
import dev.bolo.server.transcription.Intake;
import dev.bolo.server.transcription.NoteRequest;
import dev.bolo.server.transcription.SettingFields;
import dev.bolo.server.transcription.Transcriber;
import dev.bolo.server.upload.Upload;
import dev.bolo.server.upload.UploadReader;
import dev.bolo.server.upload.UploadResult;
import dev.bolo.server.work.KeptTranscript;
import dev.bolo.server.work.WorkResult;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.opentelemetry.api.trace.Span;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Handles {@code POST /v1/transcriptions} (Bolo's native shape), {@code POST
 * /v1/audio/transcriptions} and {@code POST /v1/audio/translations} (OpenAI's shape, streamed with
 * {@code stream=true}, see {@link TranscriptStream}): behind the {@link DeviceGate}, read and hash
 * the upload, transcribe once, answer; every refusal through the {@link ErrorWriter}. Thread safe.
 */
final class TranscriptionHandler implements Handler {

  private static final Logger log = LoggerFactory.getLogger(TranscriptionHandler.class);
  private static final ObjectMapper JSON = HttpJson.MAPPER;

  /** The form fields that carry one value each: the settings, and stream. */
  private static final List<String> FORM_SINGLE_VALUED =
      Stream.concat(SettingFields.SINGLE_VALUED.stream(), Stream.of("stream")).toList();

  private final Dialect dialect;
  private final Intake intake;
  private final UploadReader reader;
  private final Transcriber transcriber;
  private final ConnectionTimeouts timeouts;

  TranscriptionHandler(
      Dialect dialect,
      Intake intake,
      UploadReader reader,
      Transcriber transcriber,
      ConnectionTimeouts timeouts) {
    this.dialect = dialect;
    this.intake = Objects.requireNonNull(intake, "intake");
    this.timeouts = Objects.requireNonNull(timeouts, "timeouts");
    this.reader = Objects.requireNonNull(reader, "uploads");
    this.transcriber = Objects.requireNonNull(transcriber, "transcriber");
  }

  @Override
  public void handle(Context ctx) throws IOException, InterruptedException {
    Device device = DeviceGate.device(ctx);
    long contentLength = ctx.req().getContentLengthLong();
    // Refuse a declared oversize body at once, before reading any of it: the phone learns the
    // limit and where a larger note goes instead of sending hundreds of megabytes for nothing.
    if (contentLength > reader.maxBodyBytes()) {
      ErrorWriter.refuseBody(ctx, dialect, Errors.tooLarge(reader.tooLargeMessage()));
      return;
    }
    // A body that falls silent for a whole rate window is too slow; the rate itself is checked
    // as it arrives.
    timeouts.setIdleTimeout(ctx, timeouts.body());
    UploadResult result;
    // Read and hashed as it streams in: one span for both.
    Span reading = NoteSpans.start("read upload");
    try {
      result =
          reader.read(
              device.name(), ctx.req().getContentType(), contentLength, ctx.req().getInputStream());
      if (result instanceof UploadResult.Received received) {
        reading.setAttribute(NoteSpans.AUDIO_BYTES, received.upload().audio().size());
      }
    } finally {
      reading.end();
    }
    switch (result) {
      case UploadResult.Invalid invalid -> {
        log.info("upload refused: {}", invalid.message());
        // The rest of the body may still be arriving.
        ErrorWriter.refuseBody(ctx, dialect, Errors.of(invalid, dialect.audioField()));
      }
      case UploadResult.Received received -> {
        // Waiting for the transcript is not idleness: the connection lives until the engine's
        // deadline, then goes back to the keep-alive idle timeout once answered.
        timeouts.setIdleTimeout(ctx, timeouts.answer());
        Upload upload = received.upload();
        RequestEnd end = RequestEnd.of(ctx);
        end.release(upload::close);
        end.onExchange(() -> timeouts.setIdleTimeout(ctx, timeouts.idle()));
        transcribe(ctx, RequestLog.requestIdOf(ctx), device, upload);
      }
    }
  }

  /**
   * The note an upload carries, with its settings and the request's headers: a transcription's or a
   * job's.
   *
   * @param singleValued the form's fields that may be given once
   * @throws MalformedParameterException when a field or header is malformed or repeated
   */
  static NoteRequest noteRequest(
      Context ctx, Device device, Upload upload, List<String> singleValued, String requestId) {
    MalformedParameterException.ifRepeated(upload::fieldValues, singleValued);
    return new NoteRequest(
        device,
        upload.audio(),
        SettingFields.of(upload::field, upload::fieldValues),
        RequestHeaders.audioSha256(RequestHeaders.single(ctx, RequestHeaders.AUDIO_SHA256)),
        RequestHeaders.claimedDurationMs(RequestHeaders.single(ctx, RequestHeaders.AUDIO_DURATION)),
        RequestHeaders.idempotencyKey(RequestHeaders.single(ctx, RequestHeaders.IDEMPOTENCY_KEY)),
        requestId);
  }

  private void transcribe(Context ctx, String requestId, Device device, Upload upload)
      throws IOException, InterruptedException {
    NoteRequest request;
    boolean stream;
    try {
      request = noteRequest(ctx, device, upload, FORM_SINGLE_VALUED, requestId);
      stream = isStreamAsked(upload);
    } catch (MalformedParameterException e) {
      ErrorWriter.write(ctx, dialect, Errors.invalid(e));
      return;
    }
    Transcriber.Note note;
    switch (intake.accept(request)) {
      case Intake.Acceptance.Refused refused -> {
        ErrorWriter.write(ctx, dialect, Errors.of(refused.refusal()));
        return;
      }
      case Intake.Acceptance.Accepted accepted -> note = accepted.note();
    }
    if (stream) {
      TranscriptStream.answer(ctx, requestId, transcriber, note);
      return;
    }
    // The request's thread is let go while the work runs; the answer is written on its own.
    RequestEnd.of(ctx)
        .answerWhen(
            ctx,
            transcriber.transcribeLater(note),
            answer -> send(ctx, requestId, answer, note.settings()));
  }

  private void send(Context ctx, String requestId, Transcriber.Answer answer, Settings settings) {
    switch (answer.outcome()) {
      case WorkResult.Success success -> {
        try {
          sendTranscript(ctx, requestId, success.transcript(), answer, settings);
        } catch (IOException e) {
          // Rendering a kept transcript failed (writing is not: a client gone is logged there).
          throw new UncheckedIOException(e);
        }
      }
      case WorkResult.Refused refused -> {
        if (answer.replayed()) {
          ctx.res().setHeader("Idempotent-Replayed", "true");
        }
        ErrorWriter.write(ctx, dialect, Errors.of(refused));
      }
    }
  }

  /**
   * OpenAI's {@code stream} form field (the SDKs send {@code true} or {@code false}); the native
   * endpoint does not stream. It is no setting of the work: the text is the same either way.
   */
  private boolean isStreamAsked(Upload upload) {
    String value = upload.field("stream");
    if (dialect == Dialect.NATIVE || value == null || value.isBlank()) {
      return false;
    }
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new MalformedParameterException("stream", "stream must be true or false");
    };
  }

  private void sendTranscript(
      Context ctx,
      String requestId,
      KeptTranscript transcript,
      Transcriber.Answer answer,
      Settings settings)
      throws IOException {
    if (answer.replayed()) {
      ctx.res().setHeader("Idempotent-Replayed", "true");
    }
    // The settings' model is the one the work ran with: an alias was resolved to it.
    AnswerHeaders.nameWork(ctx, transcript, settings.model());
    if (dialect == Dialect.NATIVE) {
      write(
          ctx,
          200,
          "application/json",
          NativeAnswer.body(
              transcript,
              settings.responseFormat(),
              answer.replayed(),
              requestId,
              settings.model()));
      return;
    }
    Renditions.Rendition rendition =
        Renditions.openAi(
            transcript.transcript(), settings, transcript.usage(), transcript.durationMs());
    write(ctx, 200, rendition.contentType(), utf8(rendition.body()));
  }

  /**
   * Adds the provider's {@code usage} to an OpenAI-shaped answer, as OpenAI's own answer carries
   * it; a replay carries the usage of the call that made the transcript.
   */
  static void putUsage(ObjectNode answer, KeptTranscript transcript) throws IOException {
    String usage = transcript.usage();
    if (usage != null) {
      answer.set("usage", JSON.readTree(usage));
    }
  }

  private static void write(Context ctx, int status, String contentType, byte[] body)
      throws IOException {
    HttpServletResponse res = ctx.res();
    res.setStatus(status);
    res.setContentType(contentType);
    res.setContentLength(body.length);
    try {
      res.getOutputStream().write(body);
      res.flushBuffer();
    } catch (IOException e) {
      // The client hung up; the work it started goes on and a resend will get the result.
      log.info("client gone before the answer ({}): {}", status, e.toString());
    }
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
