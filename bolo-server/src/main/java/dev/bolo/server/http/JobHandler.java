package dev.bolo.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bolo.server.engine.ClientText;
import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.JobRecord;
import dev.bolo.server.ledger.JobStatus;
import dev.bolo.server.transcription.JobView;
import dev.bolo.server.transcription.Jobs;
import dev.bolo.server.transcription.NoteRequest;
import dev.bolo.server.transcription.SettingFields;
import dev.bolo.server.upload.Upload;
import dev.bolo.server.upload.UploadReader;
import dev.bolo.server.upload.UploadResult;
import io.javalin.http.Context;
import java.io.IOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Handles jobs (PROTOCOL v4): {@code POST /v1/jobs} reads and hashes the note as {@code POST
 * /v1/transcriptions} does and answers 202 with the job once it is stored; {@code GET
 * /v1/jobs/{id}}, {@code GET /v1/jobs} (the device's own, newest first) and {@code DELETE
 * /v1/jobs/{id}}. Another device's job is 404. Thread safe.
 */
final class JobHandler {

  static final String COLLECTION = "/v1/jobs";
  static final String ONE = "/v1/jobs/{id}";

  /**
   * A page of the list, unless {@code limit} asks for fewer or more (at most {@link #MAX_PAGE}).
   */
  private static final int PAGE = 20;

  private static final int MAX_PAGE = 100;

  /** The longest metadata value kept: metadata is a label, not a document. */
  private static final int MAX_METADATA_CHARS = 500;

  /** A JSON body names an upload, a URL and 16 short values: 16 KiB holds them all. */
  private static final int MAX_JSON_BYTES = 16 * 1024;

  private static final List<String> FORM_SINGLE_VALUED =
      Stream.concat(SettingFields.SINGLE_VALUED.stream(), Stream.of("webhook_url", "metadata"))
          .toList();

  private final Jobs jobs;
  private final UploadReader reader;
  private final ConnectionTimeouts timeouts;

  JobHandler(Jobs jobs, UploadReader reader, ConnectionTimeouts timeouts) {
    this.jobs = Objects.requireNonNull(jobs, "jobs");
    this.reader = Objects.requireNonNull(reader, "reader");
    this.timeouts = Objects.requireNonNull(timeouts, "timeouts");
  }

  /** {@code POST /v1/jobs}: a form with the note, or JSON naming a finished upload. */
  void create(Context ctx) throws IOException, InterruptedException {
    Device device = DeviceGate.device(ctx);
    String type = ctx.req().getContentType();
    if (type != null && type.toLowerCase(Locale.ROOT).startsWith("application/json")) {
      fromUpload(ctx, device);
      return;
    }
    long contentLength = ctx.req().getContentLengthLong();
    if (contentLength > reader.maxBodyBytes()) {
      ErrorWriter.refuseBody(ctx, Dialect.NATIVE, Errors.tooLarge(reader.tooLargeMessage()));
      return;
    }
    timeouts.setIdleTimeout(ctx, timeouts.body());
    UploadResult result =
        reader.read(
            device.name(), ctx.req().getContentType(), contentLength, ctx.req().getInputStream());
    switch (result) {
      case UploadResult.Invalid invalid ->
          ErrorWriter.refuseBody(ctx, Dialect.NATIVE, Errors.of(invalid, "audio"));
      case UploadResult.Received received -> {
        try (Upload upload = received.upload()) {
          submit(ctx, device, upload);
        } finally {
          timeouts.setIdleTimeout(ctx, timeouts.idle());
        }
      }
    }
  }

  private void submit(Context ctx, Device device, Upload upload) throws IOException {
    NoteRequest request;
    Map<String, String> metadata;
    String webhookUrl;
    try {
      request =
          TranscriptionHandler.noteRequest(
              ctx, device, upload, FORM_SINGLE_VALUED, RequestLog.requestIdOf(ctx));
      metadata = metadata(upload.field("metadata"));
      webhookUrl = blankIsNull(upload.field("webhook_url"));
    } catch (MalformedParameterException e) {
      ErrorWriter.write(ctx, Dialect.NATIVE, Errors.invalid(e));
      return;
    }
    answer(ctx, jobs.submit(request, webhookUrl, metadata));
  }

  private void answer(Context ctx, Jobs.Submission submission) throws IOException {
    switch (submission) {
      case Jobs.Submission.Accepted accepted -> {
        if (accepted.existing()) {
          ctx.res().setHeader("Idempotent-Replayed", "true");
        }
        answer(ctx, 202, view(accepted.job()));
      }
      case Jobs.Submission.Refused refused ->
          ErrorWriter.write(ctx, Dialect.NATIVE, Errors.of(refused.refusal()));
      case Jobs.Submission.RefusedUrl url ->
          ErrorWriter.write(ctx, Dialect.NATIVE, Errors.invalid("webhook_url", url.message()));
      case Jobs.Submission.KeyReused reused ->
          ErrorWriter.write(
              ctx,
              Dialect.NATIVE,
              new ApiError(
                  422, "idempotency_key_reused", reused.message(), "Idempotency-Key", null));
      case Jobs.Submission.NoSuchUpload none ->
          ErrorWriter.write(ctx, Dialect.NATIVE, new ApiError(404, "not_found", none.message()));
      case Jobs.Submission.Full full ->
          ErrorWriter.write(
              ctx,
              Dialect.NATIVE,
              new ApiError(429, "rate_limited", full.message(), null, Jobs.FULL_RETRY_AFTER));
    }
  }

  /**
   * {@code POST /v1/jobs} with {@code {"upload_id":…,"webhook_url":…,"metadata":{…}}}: a job for
   * the note of the device's finished resumable upload.
   */
  private void fromUpload(Context ctx, Device device) throws IOException, InterruptedException {
    byte[] body = ctx.req().getInputStream().readNBytes(MAX_JSON_BYTES + 1);
    String uploadId;
    Map<String, String> metadata;
    String webhookUrl;
    String key;
    try {
      if (body.length > MAX_JSON_BYTES) {
        throw new MalformedParameterException(
            "upload_id", "a job's JSON body holds at most " + MAX_JSON_BYTES + " bytes");
      }
      JsonNode json = parsed(body);
      uploadId =
          blankIsNull(json.path("upload_id").isTextual() ? json.get("upload_id").asText() : null);
      if (uploadId == null) {
        throw new MalformedParameterException(
            "upload_id", "upload_id must name a finished resumable upload");
      }
      webhookUrl =
          blankIsNull(
              json.path("webhook_url").isTextual() ? json.get("webhook_url").asText() : null);
      metadata = json.has("metadata") ? metadata(json.get("metadata")) : Map.of();
      key =
          RequestHeaders.idempotencyKey(RequestHeaders.single(ctx, RequestHeaders.IDEMPOTENCY_KEY));
    } catch (MalformedParameterException e) {
      ErrorWriter.refuseBody(ctx, Dialect.NATIVE, Errors.invalid(e));
      return;
    }
    answer(ctx, jobs.submitUpload(device, uploadId, webhookUrl, metadata, key));
  }

  private static JsonNode parsed(byte[] body) {
    try {
      JsonNode json = HttpJson.MAPPER.readTree(body);
      if (json != null && json.isObject()) {
        return json;
      }
    } catch (IOException e) {
      // Answered below, as any body that is not a JSON object.
    }
    throw new MalformedParameterException("upload_id", "the body must be a JSON object");
  }

  /** {@code GET /v1/jobs/{id}}. */
  void one(Context ctx) throws IOException {
    Optional<JobRecord> job = jobs.find(DeviceGate.device(ctx), ctx.pathParam("id"));
    if (job.isEmpty()) {
      ErrorWriter.write(ctx, Dialect.NATIVE, noSuchJob());
      return;
    }
    answer(ctx, 200, view(job.get()));
  }

  /** {@code DELETE /v1/jobs/{id}}: cancels it unless it ended; answers the job as it is now. */
  void cancel(Context ctx) throws IOException {
    Optional<JobRecord> job = jobs.cancel(DeviceGate.device(ctx), ctx.pathParam("id"));
    if (job.isEmpty()) {
      ErrorWriter.write(ctx, Dialect.NATIVE, noSuchJob());
      return;
    }
    answer(ctx, 200, view(job.get()));
  }

  /** {@code GET /v1/jobs?status=&after=&limit=}. */
  void list(Context ctx) throws IOException {
    JobStatus status;
    int limit;
    try {
      QueryEscapes.check(ctx.queryString());
      MalformedParameterException.ifRepeated(ctx::queryParams, List.of("status", "after", "limit"));
      status = status(ctx.queryParam("status"));
      limit = limit(ctx.queryParam("limit"));
    } catch (MalformedParameterException e) {
      ErrorWriter.write(ctx, Dialect.NATIVE, Errors.invalid(e));
      return;
    }
    // One more than the page tells whether there is a next one.
    List<JobRecord> found =
        jobs.list(DeviceGate.device(ctx), status, blankIsNull(ctx.queryParam("after")), limit + 1);
    ObjectNode page = HttpJson.MAPPER.createObjectNode();
    page.put("object", "list");
    ArrayNode data = page.putArray("data");
    found.stream().limit(limit).forEach(job -> data.add(view(job)));
    page.put("has_more", found.size() > limit);
    answer(ctx, 200, page);
  }

  private ObjectNode view(JobRecord job) {
    return JobView.of(job, jobs.progress(job));
  }

  private static void answer(Context ctx, int status, ObjectNode body) throws IOException {
    byte[] bytes = HttpJson.MAPPER.writeValueAsBytes(body);
    ctx.res().setStatus(status);
    ctx.res().setContentType("application/json");
    ctx.res().setContentLength(bytes.length);
    ctx.res().getOutputStream().write(bytes);
  }

  private static ApiError noSuchJob() {
    return new ApiError(404, "not_found", "no such job for this device (unknown or deleted)");
  }

  private static @Nullable JobStatus status(@Nullable String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    for (JobStatus status : JobStatus.values()) {
      if (status.wireName().equals(value.trim().toLowerCase(Locale.ROOT))) {
        return status;
      }
    }
    throw new MalformedParameterException(
        "status",
        "status must be queued, running, succeeded, failed or cancelled: "
            + ClientText.shown(value, 40));
  }

  private static int limit(@Nullable String value) {
    if (value == null || value.isBlank()) {
      return PAGE;
    }
    try {
      int limit = Integer.parseInt(value.trim());
      if (limit >= 1 && limit <= MAX_PAGE) {
        return limit;
      }
    } catch (NumberFormatException e) {
      // Answered below, as out of range.
    }
    throw new MalformedParameterException(
        "limit",
        "limit must be a whole number from 1 to " + MAX_PAGE + ": " + ClientText.shown(value, 40));
  }

  /** The {@code metadata} field: a JSON object of at most 16 string values. */
  private static Map<String, String> metadata(@Nullable String field) {
    if (field == null || field.isBlank()) {
      return Map.of();
    }
    try {
      return metadata(HttpJson.MAPPER.readTree(field));
    } catch (JsonProcessingException e) {
      throw new MalformedParameterException("metadata", "metadata must be a JSON object");
    }
  }

  private static Map<String, String> metadata(@Nullable JsonNode parsed) {
    if (parsed == null || !parsed.isObject()) {
      throw new MalformedParameterException("metadata", "metadata must be a JSON object");
    }
    if (parsed.size() > Jobs.MAX_METADATA_VALUES) {
      throw new MalformedParameterException(
          "metadata",
          "metadata holds at most " + Jobs.MAX_METADATA_VALUES + " values: " + parsed.size());
    }
    Map<String, String> values = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = parsed.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      if (!entry.getValue().isTextual()
          || entry.getValue().asText().length() > MAX_METADATA_CHARS
          || entry.getKey().length() > MAX_METADATA_CHARS) {
        throw new MalformedParameterException(
            "metadata",
            "metadata values must be strings of at most "
                + MAX_METADATA_CHARS
                + " characters: "
                + ClientText.shown(entry.getKey(), 40));
      }
      values.put(entry.getKey(), entry.getValue().asText());
    }
    return values;
  }

  private static @Nullable String blankIsNull(@Nullable String value) {
    return value == null || value.isBlank() ? null : value.trim();
  }
}
