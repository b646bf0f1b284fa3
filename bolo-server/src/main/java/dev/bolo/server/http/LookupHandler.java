package dev.bolo.server.http;

import dev.bolo.server.engine.ClientText;
import dev.bolo.server.engine.ResponseFormat;
import dev.bolo.server.ledger.Device;
import dev.bolo.server.transcription.NoteLookup;
import dev.bolo.server.transcription.SettingFields;
import dev.bolo.server.work.KeptTranscript;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Handles {@code GET /v1/transcriptions/{sha256}} (PROTOCOL.md "Resends without the audio"): a
 * phone that has sent a note before asks for its finished transcript before uploading it again. 200
 * with the upload's body and {@code Idempotent-Replayed: true}; 202 {@code {"status":"running"}}
 * with {@code Retry-After: 1} while the work runs; 404 {@code not_found} otherwise. Thread safe.
 */
final class LookupHandler implements Handler {

  static final String PATH = "/v1/transcriptions/{sha256}";

  private static final Pattern WHOLE_SECONDS = Pattern.compile("[0-9]{1,2}");

  /** The query parameters that carry one value each: the upload's text form fields, and wait. */
  private static final List<String> SINGLE_VALUED =
      Stream.concat(SettingFields.SINGLE_VALUED.stream(), Stream.of("wait")).toList();

  private final NoteLookup lookups;
  private final ConnectionTimeouts timeouts;

  LookupHandler(NoteLookup lookups, ConnectionTimeouts timeouts) {
    this.lookups = Objects.requireNonNull(lookups, "lookups");
    this.timeouts = Objects.requireNonNull(timeouts, "timeouts");
  }

  @Override
  public void handle(Context ctx) throws IOException, InterruptedException {
    Device device = DeviceGate.device(ctx);
    String requestId = RequestLog.requestIdOf(ctx);
    String hash = ctx.pathParam("sha256");
    if (!RequestHeaders.HEX_SHA256.matcher(hash).matches()) {
      ErrorWriter.write(
          ctx,
          Dialect.NATIVE,
          Errors.invalid(
              "sha256", "the audio hash must be 64 hex digits: " + ClientText.shown(hash, 80)));
      return;
    }
    Duration wait;
    try {
      QueryEscapes.check(ctx.queryString());
      MalformedParameterException.ifRepeated(ctx::queryParams, SINGLE_VALUED);
      wait = waitOf(ctx.queryParam("wait"));
    } catch (MalformedParameterException e) {
      ErrorWriter.write(ctx, Dialect.NATIVE, Errors.invalid(e));
      return;
    }
    // Waiting for running work is not idleness: keep the connection for the wait.
    timeouts.setIdleTimeout(ctx, timeouts.idle().plus(wait));
    NoteLookup.Found found;
    try {
      // The same fields an upload sends, made canonical by the upload's rule.
      found =
          lookups.find(
              device,
              SettingFields.of(ctx::queryParam, ctx::queryParams),
              hash.toLowerCase(Locale.ROOT),
              wait,
              requestId);
    } finally {
      timeouts.setIdleTimeout(ctx, timeouts.idle());
    }
    switch (found) {
      case NoteLookup.Found.Finished finished ->
          sendTranscript(
              ctx, requestId, finished.transcript(), finished.model(), finished.format());
      case NoteLookup.Found.Running running -> RunningAnswer.send(ctx, running.progress());
      case NoteLookup.Found.Refused refused ->
          ErrorWriter.write(ctx, Dialect.NATIVE, Errors.of(refused.refusal()));
      case NoteLookup.Found.Absent absent ->
          ErrorWriter.write(ctx, Dialect.NATIVE, Errors.noTranscript());
    }
  }

  /** {@code wait} in whole seconds, 0 to 60; absent is 0. */
  static Duration waitOf(@Nullable String wait) {
    if (wait == null || wait.isBlank()) {
      return Duration.ZERO;
    }
    String trimmed = wait.trim();
    if (!WHOLE_SECONDS.matcher(trimmed).matches()
        || Integer.parseInt(trimmed) > NoteLookup.MAX_WAIT.toSeconds()) {
      throw new MalformedParameterException(
          "wait",
          "wait must be whole seconds from 0 to "
              + NoteLookup.MAX_WAIT.toSeconds()
              + ": "
              + ClientText.shown(trimmed, 80));
    }
    return Duration.ofSeconds(Integer.parseInt(trimmed));
  }

  /** The native upload's 200 body for a replay, with this request's id. */
  private static void sendTranscript(
      Context ctx, String requestId, KeptTranscript transcript, String model, ResponseFormat format)
      throws IOException {
    ctx.header("Idempotent-Replayed", "true");
    AnswerHeaders.nameWork(ctx, transcript, model);
    write(ctx, 200, NativeAnswer.body(transcript, format, true, requestId, model));
  }

  private static void write(Context ctx, int status, byte[] body) {
    ctx.status(status).contentType("application/json").result(body);
  }
}
