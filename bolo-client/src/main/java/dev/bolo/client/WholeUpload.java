package dev.bolo.client;

import java.util.function.Consumer;
import okhttp3.HttpUrl;
import okhttp3.MultipartBody;
import okhttp3.Request;
import org.jspecify.annotations.Nullable;

/**
 * Sends one note whole, as the multipart {@code POST /v1/transcriptions} (PROTOCOL.md), and turns
 * the answer into the attempt's result. Thread-safe: it keeps nothing between attempts.
 */
final class WholeUpload {

  private final NoteRequests requests;
  private final HttpUrl endpoint;

  WholeUpload(NoteRequests requests, HttpUrl endpoint) {
    this.requests = requests;
    this.endpoint = endpoint;
  }

  /** Uploads the note as part of {@code attempt} and reports its result once. */
  void send(Attempt attempt, Consumer<Resender.AttemptResult> done) {
    NoteBody audio = new NoteBody(requests.note, requests.uploadProgressOf(attempt));
    requests.exchange(
        requestFor(attempt, audio),
        audio,
        response -> done.accept(requests.answer(response, null)),
        done,
        done);
  }

  private Request requestFor(Attempt attempt, NoteBody audio) {
    VoiceNote note = requests.note;
    TranscriptionOptions options = requests.options;
    MultipartBody.Builder form =
        new MultipartBody.Builder()
            .setType(MultipartBody.FORM)
            .addFormDataPart("audio", note.fileName(), audio);
    addIfPresent(form, "language", options.language());
    addIfPresent(form, "model", options.model());
    addIfPresent(form, "prompt", options.prompt());
    Request.Builder request =
        new Request.Builder()
            .url(endpoint)
            .header("Authorization", "Bearer " + requests.token)
            .header("X-Bolo-Audio-Sha256", note.sha256())
            // An sf-string, as the IETF httpapi Idempotency-Key draft defines the field.
            .header("Idempotency-Key", "\"" + attempt.idempotencyKey() + "\"")
            .header("X-Bolo-Request-Id", attempt.requestId())
            .post(new OneShotBody(form.build()));
    if (note.durationMs().isPresent()) {
      request.header(UploadTimeouts.DURATION_HEADER, Long.toString(note.durationMs().getAsLong()));
    }
    if (requests.attemptTimeout != null) {
      request.tag(UploadTimeouts.Fixed.class, new UploadTimeouts.Fixed(requests.attemptTimeout));
    }
    return request.build();
  }

  private static void addIfPresent(
      MultipartBody.Builder form, String name, @Nullable String value) {
    if (value != null) {
      form.addFormDataPart(name, value);
    }
  }
}
