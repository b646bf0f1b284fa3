package dev.bolo.server.engine.gemini;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.HttpDeadline;
import dev.bolo.server.engine.ProviderCall;
import dev.bolo.server.time.Sleeper;
import dev.bolo.server.upload.AudioContent;
import io.opentelemetry.context.Context;
import java.io.IOException;
import java.time.Duration;
import java.util.regex.Pattern;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gemini's Files API for notes too large to send inline, by Google's resumable upload protocol:
 * {@code POST /upload/v1beta/files} with {@code X-Goog-Upload-Command: start} answers an upload URL
 * in {@code X-Goog-Upload-URL}; one {@code upload, finalize} request to it sends the bytes and
 * answers the {@code File}. A file still {@code PROCESSING} is polled until {@code ACTIVE}. Files
 * expire after 48 hours by themselves; the engine deletes each one as soon as it has served.
 */
final class GeminiFiles {

  private static final Logger log = LoggerFactory.getLogger(GeminiFiles.class);

  private static final MediaType JSON = MediaType.get("application/json; charset=utf-8");

  /** Audio files are usually ACTIVE at once; a second between polls keeps a slow one cheap. */
  static final Duration POLL_INTERVAL = Duration.ofSeconds(1);

  /** Resource names as Google issues them, {@code files/abc-123}; anything else is not followed. */
  private static final Pattern FILE_NAME = Pattern.compile("files/[A-Za-z0-9_-]+");

  /** What the upload produced: a file to reference, or why there is none. */
  sealed interface Upload {
    record Uploaded(String name, String uri) implements Upload {}

    record NotUploaded(EngineResult.Failure failure) implements Upload {}
  }

  private final OkHttpClient client;
  private final HttpUrl baseUrl;
  private final String apiKey;
  private final ObjectMapper json;
  private final GeminiErrors errors;
  private final Sleeper sleeper;

  GeminiFiles(
      OkHttpClient client,
      HttpUrl baseUrl,
      String apiKey,
      ObjectMapper json,
      GeminiErrors errors,
      Sleeper sleeper) {
    this.client = client;
    this.baseUrl = baseUrl;
    this.apiKey = apiKey;
    this.json = json;
    this.errors = errors;
    this.sleeper = sleeper;
  }

  Upload upload(AudioContent audio, String mimeType, Deadline deadline, String requestId) {
    String startBody = "{\"file\":{\"display_name\":\"bolo-" + displayName(audio) + "\"}}";
    Request start =
        new Request.Builder()
            .url(baseUrl.newBuilder().addPathSegments("upload/v1beta/files").build())
            .header("x-goog-api-key", apiKey)
            .header("X-Goog-Upload-Protocol", "resumable")
            .header("X-Goog-Upload-Command", "start")
            .header("X-Goog-Upload-Header-Content-Length", Long.toString(audio.size()))
            .header("X-Goog-Upload-Header-Content-Type", mimeType)
            .post(RequestBody.create(startBody, JSON))
            .build();
    return switch (Exchanges.send(client, start, deadline, "upload start")) {
      case Reply.Broken broken -> new Upload.NotUploaded(broken.failure());
      case Reply.Answer answer when !answer.isSuccessful() ->
          new Upload.NotUploaded(errors.failure(answer, "upload start", null));
      case Reply.Answer answer -> sendBytes(audio, mimeType, answer, deadline, requestId);
    };
  }

  private Upload sendBytes(
      AudioContent audio,
      String mimeType,
      Reply.Answer started,
      Deadline deadline,
      String requestId) {
    String location = started.headers().get("X-Goog-Upload-URL");
    HttpUrl uploadUrl = location == null ? null : HttpUrl.parse(location);
    if (uploadUrl == null) {
      return new Upload.NotUploaded(
          new EngineResult.Failed("Gemini's upload start answered no X-Goog-Upload-URL"));
    }
    Request.Builder bytes =
        new Request.Builder()
            .url(uploadUrl)
            .header("X-Goog-Upload-Offset", "0")
            .header("X-Goog-Upload-Command", "upload, finalize")
            .post(ProviderCall.audioBody(audio, MediaType.get(mimeType)));
    // The upload URL is a capability of its own; the key goes only where it went already, never to
    // another origin an answer names.
    if (isSameOrigin(uploadUrl, baseUrl)) {
      bytes.header("x-goog-api-key", apiKey);
    }
    return switch (Exchanges.send(client, bytes.build(), deadline, "upload")) {
      case Reply.Broken broken -> new Upload.NotUploaded(broken.failure());
      case Reply.Answer uploaded when !uploaded.isSuccessful() ->
          new Upload.NotUploaded(errors.failure(uploaded, "upload", null));
      case Reply.Answer uploaded ->
          untilActive(fileIn(uploaded.body(), "file"), deadline, requestId);
    };
  }

  private static boolean isSameOrigin(HttpUrl a, HttpUrl b) {
    return a.scheme().equals(b.scheme()) && a.host().equals(b.host()) && a.port() == b.port();
  }

  /** The first 16 hex digits of the hash: enough to find the note in the key owner's console. */
  private static String displayName(AudioContent audio) {
    String sha256 = audio.sha256();
    return sha256.substring(0, Math.min(16, sha256.length())).replaceAll("[^0-9a-f]", "");
  }

  private static final java.time.Duration DELETE_TIMEOUT = java.time.Duration.ofSeconds(30);

  /** Deletes a file without waiting for the answer; a failure is only logged. */
  void deleteLater(String name, String requestId) {
    Request delete =
        new Request.Builder()
            .url(baseUrl.newBuilder().addPathSegment("v1beta").addPathSegments(name).build())
            .header("x-goog-api-key", apiKey)
            .delete()
            // Sent from OkHttp's threads: the note's trace goes with it, as its other calls' does.
            .tag(Context.class, Context.current())
            .build();
    // Clean-up only: bounded, and never charged to a note's deadline.
    HttpDeadline.newCall(client, delete, DELETE_TIMEOUT)
        .enqueue(
            new Callback() {
              @Override
              public void onResponse(Call call, Response response) {
                try (response) {
                  if (!response.isSuccessful()) {
                    log.warn(
                        "could not delete Gemini file {} for request {}: HTTP {}",
                        name,
                        requestId,
                        response.code());
                  }
                }
              }

              @Override
              public void onFailure(Call call, IOException e) {
                log.warn(
                    "could not delete Gemini file {} for request {}: {}",
                    name,
                    requestId,
                    e.toString());
              }
            });
  }

  private Upload untilActive(JsonNode file, Deadline deadline, String requestId) {
    String name = file.path("name").asText("");
    String uri = file.path("uri").asText("");
    if (!FILE_NAME.matcher(name).matches() || HttpUrl.parse(uri) == null) {
      return new Upload.NotUploaded(
          new EngineResult.Failed("Gemini's upload answered no usable file name and uri"));
    }
    EngineResult.Failure failure = pollWhileProcessing(file, name, deadline);
    if (failure == null) {
      return new Upload.Uploaded(name, uri);
    }
    deleteLater(name, requestId);
    return new Upload.NotUploaded(failure);
  }

  /** Null once the file is ACTIVE; else why it will not be. */
  private EngineResult.@Nullable Failure pollWhileProcessing(
      JsonNode file, String name, Deadline deadline) {
    JsonNode current = file;
    while (true) {
      String state = current.path("state").asText("");
      switch (state) {
        // Older answers leave the state out; the file is usable then.
        case "", "ACTIVE" -> {
          return null;
        }
        case "PROCESSING" -> {}
        default -> {
          return new EngineResult.Failed("Gemini could not process the uploaded note: " + state);
        }
      }
      // Waiting longer than the budget would only end in a timeout after the wait.
      if (deadline.remaining().compareTo(POLL_INTERVAL) <= 0) {
        return new EngineResult.TimedOut("Gemini was still processing the uploaded note");
      }
      try {
        sleeper.sleep(POLL_INTERVAL);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return new EngineResult.Failed("interrupted while Gemini processed the uploaded note");
      }
      Request status =
          new Request.Builder()
              .url(baseUrl.newBuilder().addPathSegment("v1beta").addPathSegments(name).build())
              .header("x-goog-api-key", apiKey)
              .get()
              .build();
      switch (Exchanges.send(client, status, deadline, "file status")) {
        case Reply.Broken broken -> {
          return broken.failure();
        }
        case Reply.Answer answer when !answer.isSuccessful() -> {
          return errors.failure(answer, "file status", null);
        }
        case Reply.Answer answer -> current = fileIn(answer.body(), "");
      }
    }
  }

  /** The File object at {@code field} of a JSON body (the whole body when empty). */
  private JsonNode fileIn(String body, String field) {
    try {
      JsonNode root = json.readTree(body);
      return field.isEmpty() ? root : root.path(field);
    } catch (JsonProcessingException e) {
      return json.missingNode();
    }
  }
}
