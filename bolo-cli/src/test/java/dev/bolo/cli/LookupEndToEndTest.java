package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.client.BoloClient;
import dev.bolo.client.Outcome;
import dev.bolo.client.TranscriptionOptions;
import dev.bolo.client.VoiceNote;
import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import mockwebserver3.junit5.StartStop;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.ByteString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The SDK's lookup before a resend against the real gateway: a proxy in front of it forwards
 * everything and loses the answer to the first upload on the way back, as a phone's link does.
 */
class LookupEndToEndTest {

  @RegisterExtension final GatewayExtension gateway = new GatewayExtension();
  @StartStop private final MockWebServer proxy = new MockWebServer();

  private final OkHttpClient forwarder = new OkHttpClient();
  private final List<RecordedRequest> seen = new CopyOnWriteArrayList<>();

  @Test
  void aTranscriptLostOnTheWayBackIsFetchedByALookupAndTheNoteIsUploadedOnce() {
    proxy.setDispatcher(new LosingFirstAnswer());
    VoiceNote note = VoiceNote.ofBytes(EndToEndTest.wav(1000, 41), "note.wav");

    Outcome outcome =
        gateway
            .client()
            .baseUrl(proxy.url("/"))
            .build()
            .transcribe(note, TranscriptionOptions.defaults().withLanguage("en"));

    assertThat(outcome).isInstanceOf(Outcome.Transcribed.class);
    assertThat(outcome.attempts()).isEqualTo(2);
    Outcome.Transcribed transcribed = (Outcome.Transcribed) outcome;
    assertThat(transcribed.transcript().deduplicated()).isTrue();
    assertThat(transcribed.transcript().audioSha256()).isEqualTo(note.sha256());
    assertThat(seen).extracting(RecordedRequest::getMethod).containsExactly("POST", "GET");
    assertThat(seen.stream().mapToLong(RecordedRequest::getBodySize).sum())
        .as("bytes sent: the note once")
        .isEqualTo(seen.get(0).getBodySize());
    assertThat(gateway.calls()).isEqualTo(1);
  }

  @Test
  void turnedOffTheSameLossCostsASecondUpload() {
    proxy.setDispatcher(new LosingFirstAnswer());
    VoiceNote note = VoiceNote.ofBytes(EndToEndTest.wav(1000, 42), "note.wav");

    BoloClient client = gateway.client().baseUrl(proxy.url("/")).lookupBeforeResend(false).build();
    Outcome outcome = client.transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isInstanceOf(Outcome.Transcribed.class);
    assertThat(seen).extracting(RecordedRequest::getMethod).containsExactly("POST", "POST");
    assertThat(gateway.calls()).as("the second upload is replayed").isEqualTo(1);
  }

  /** Forwards every request to the gateway; the first answer is dropped before it is sent. */
  private final class LosingFirstAnswer extends Dispatcher {
    private final AtomicBoolean lost = new AtomicBoolean();

    @Override
    public MockResponse dispatch(RecordedRequest request) {
      seen.add(request);
      MockResponse answer = forward(request);
      if (lost.compareAndSet(false, true)) {
        // The gateway did the work; the phone never hears of it.
        return answer
            .newBuilder()
            .onResponseStart(new SocketEffect.CloseSocket(true, false, false))
            .build();
      }
      return answer;
    }

    private MockResponse forward(RecordedRequest request) {
      HttpUrl target =
          Objects.requireNonNull(HttpUrl.parse(gateway.baseUrl()))
              .newBuilder()
              .encodedPath(request.getUrl().encodedPath())
              .encodedQuery(request.getUrl().encodedQuery())
              .build();
      Request.Builder forward = new Request.Builder().url(target);
      if ("POST".equals(request.getMethod())) {
        ByteString body = Objects.requireNonNull(request.getBody());
        String contentType = Objects.requireNonNull(request.getHeaders().get("Content-Type"));
        forward.post(RequestBody.create(body.toByteArray(), MediaType.get(contentType)));
      }
      for (String name : request.getHeaders().names()) {
        if (name.startsWith("X-Bolo")
            || name.equals("Authorization")
            || name.equals("Idempotency-Key")) {
          forward.header(name, Objects.requireNonNull(request.getHeaders().get(name)));
        }
      }
      try (Response answer = forwarder.newCall(forward.build()).execute()) {
        return new MockResponse.Builder()
            .code(answer.code())
            .addHeader("Content-Type", "application/json")
            .body(answer.body().string())
            .build();
      } catch (IOException e) {
        return new MockResponse.Builder().code(502).body("proxy: " + e).build();
      }
    }
  }
}
