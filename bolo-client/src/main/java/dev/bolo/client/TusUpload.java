package dev.bolo.client;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.function.Consumer;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;

/**
 * Sends one note as a tus 1.0.0 resumable upload ({@code /v1/uploads}, PROTOCOL.md "Resumable
 * uploads"): creates the upload, appends the note streaming from the server's offset, and fetches
 * the transcript with {@code GET /v1/uploads/{id}/transcription?wait=N} (asked again while the
 * gateway answers 202 running, see {@link RunningWork}). A link that breaks during an append costs
 * only what was in flight: a {@code HEAD} asks how far the gateway got and the next append goes on
 * from there. Each attempt's steps are a {@link TusAttempt}.
 *
 * <p>A resume is part of the attempt it continues: the attempt goes on as long as each resume moves
 * the gateway's offset forward, at most {@link #MAX_RESUMES_PER_ATTEMPT} times. When the offset
 * shows no progress the gateway is asked again after short pauses ({@link #SETTLE_PAUSES}: it may
 * still be taking the broken append's bytes); still none, the attempt ends with the link's failure
 * and the resend policy decides (its pause, its window); the next attempt picks the same upload up
 * again from the gateway's offset.
 *
 * <p>One instance per note: it remembers the note's upload across attempts. Thread-safe: an
 * attempt's steps run one after another on OkHttp's threads; attempts never overlap.
 */
final class TusUpload {

  static final String UPLOADS_PATH = "v1/uploads";
  static final String TUS_VERSION = "1.0.0";
  static final MediaType OFFSET_OCTET_STREAM = MediaType.get("application/offset+octet-stream");

  /**
   * Resumes one attempt may make. Each must also move the gateway's offset forward, so the bound
   * only matters on a link that breaks every few kilobytes: 32 resumes carry a 25 MiB note (the
   * gateway's default limit) even when each connection delivers less than 1 MiB.
   */
  static final int MAX_RESUMES_PER_ATTEMPT = 32;

  /**
   * Waits before asking the offset again when the first answer after a break shows no progress. The
   * gateway may still be taking the broken append's last bytes (it notices the broken connection
   * after the client does); asking again beats appending blind, whose bytes would pile up in socket
   * buffers while the gateway finishes the broken append.
   */
  static final List<Duration> SETTLE_PAUSES =
      List.of(Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1));

  /** Room on top of the gateway's wait for the transcript to arrive. */
  private static final Duration ANSWER_MARGIN = Duration.ofSeconds(10);

  /** The longest wait the gateway accepts ({@code wait} is 0–60 s). */
  private static final Duration MAX_WAIT = Duration.ofSeconds(60);

  private final NoteRequests requests;
  private final HttpUrl uploads;
  private final RunningWork running;

  /** The note's upload on the gateway, kept across attempts; null until created or once gone. */
  private volatile @Nullable HttpUrl location;

  TusUpload(NoteRequests requests, HttpUrl uploads, RunningWork running) {
    this.requests = requests;
    this.uploads = uploads;
    this.running = running;
  }

  /**
   * Makes the upload part of {@code attempt} (any lookup has been made) and reports its result
   * once; {@code fallBack} is run instead when the gateway turns out to have no uploads.
   */
  void send(Attempt attempt, Consumer<Resender.AttemptResult> done, Runnable fallBack) {
    new TusAttempt(this, requests, attempt, done, fallBack).begin();
  }

  /** The note's wait for work the gateway reports running. */
  RunningWork running() {
    return running;
  }

  /** The gateway's tus endpoint, where uploads are created. */
  HttpUrl uploads() {
    return uploads;
  }

  /** The note's upload, left by an earlier step or attempt; null when there is none. */
  @Nullable HttpUrl location() {
    return location;
  }

  /** Remembers the note's upload, or (null) that it is gone or spent. */
  void remember(@Nullable HttpUrl upload) {
    location = upload;
  }

  /** Ends the gateway's upload of a note that changed: its bytes can never be transcribed. */
  void terminate(HttpUrl url) {
    location = null;
    try {
      requests
          .http
          .newCall(base(url, requests.attemptTimeout).delete().build())
          .enqueue(
              new Callback() {
                @Override
                public void onFailure(Call call, IOException e) {
                  // The gateway sweeps what it is not told to delete (BOLO_UPLOAD_TTL).
                }

                @Override
                public void onResponse(Call call, Response response) {
                  response.close();
                }
              });
    } catch (RuntimeException rejected) {
      // As above: the sweep deletes it later.
    }
  }

  /** The headers every tus request carries, and its timeout. */
  Request.Builder base(HttpUrl url, @Nullable Duration timeout) {
    Request.Builder request =
        new Request.Builder()
            .url(url)
            .header("Authorization", "Bearer " + requests.token)
            .header("Tus-Resumable", TUS_VERSION);
    if (timeout != null) {
      request.tag(UploadTimeouts.Fixed.class, new UploadTimeouts.Fixed(timeout));
    }
    return request;
  }

  /**
   * tus's {@code Upload-Metadata}: comma-separated {@code key base64(value)} pairs, the settings
   * under the form's field names, the file name and the note's SHA-256.
   */
  String metadata() {
    StringBuilder pairs = new StringBuilder();
    pair(pairs, "filename", requests.note.fileName());
    pair(pairs, "sha256", requests.note.sha256());
    pair(pairs, "language", requests.options.language());
    pair(pairs, "model", requests.options.model());
    pair(pairs, "prompt", requests.options.prompt());
    return pairs.toString();
  }

  private static void pair(StringBuilder pairs, String key, @Nullable String value) {
    if (value == null) {
      return;
    }
    if (pairs.length() > 0) {
      pairs.append(',');
    }
    pairs
        .append(key)
        .append(' ')
        .append(Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * The gateway's wait for a transcript: the note's read timeout less room for the answer to
   * arrive, at most the 60 s the gateway allows.
   */
  static Duration waitFor(Duration readTimeout) {
    Duration wait = readTimeout.minus(ANSWER_MARGIN);
    if (wait.isNegative()) {
      return Duration.ZERO;
    }
    return wait.compareTo(MAX_WAIT) > 0 ? MAX_WAIT : wait;
  }

  /** {@code Upload-Offset} as a number, or -1 when missing or invalid. */
  static long offsetOf(Response response) {
    String value = response.header("Upload-Offset");
    if (value == null || value.isEmpty() || value.length() > 18) {
      return -1;
    }
    for (int i = 0; i < value.length(); i++) {
      if (value.charAt(i) < '0' || value.charAt(i) > '9') {
        return -1;
      }
    }
    return Long.parseLong(value);
  }
}
