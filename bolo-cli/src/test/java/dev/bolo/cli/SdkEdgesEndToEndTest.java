package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.client.Attempt;
import dev.bolo.client.BoloClient;
import dev.bolo.client.CallOptions;
import dev.bolo.client.Outcome;
import dev.bolo.client.Scheduler;
import dev.bolo.client.Timing;
import dev.bolo.client.TranscriptionHandle;
import dev.bolo.client.TranscriptionListener;
import dev.bolo.client.TranscriptionOptions;
import dev.bolo.client.VoiceNote;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
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
import org.junit.jupiter.api.io.TempDir;

/**
 * The hardened edges of the SDK against the real gateway: a proxy in front of it that answers
 * hostile or "resend now" errors, a note that changes or disappears between attempts, and the app's
 * own cancellations. The provider's call count shows what reached the engine.
 */
class SdkEdgesEndToEndTest {

  @RegisterExtension final GatewayExtension gateway = new GatewayExtension();
  @StartStop private final MockWebServer proxy = new MockWebServer();
  @TempDir Path dir;

  private final OkHttpClient forwarder = new OkHttpClient();

  // A proxy in front of the gateway: 503 + Retry-After: 0, and a 503 of 100,000 '['.

  @Test
  void aProxysServiceUnavailableWithRetryAfterZeroIsResentOnceByThePolicyNotByOkHttp() {
    Proxy front =
        new Proxy(
            new MockResponse.Builder().code(503).addHeader("Retry-After", "0").body("").build());
    proxy.setDispatcher(front);

    Outcome outcome =
        gateway
            .client()
            .baseUrl(proxy.url("/"))
            .build()
            .transcribe(note(1), TranscriptionOptions.defaults());

    assertThat(outcome).isInstanceOf(Outcome.Transcribed.class);
    assertThat(outcome.attempts()).isEqualTo(2);
    // Two uploads and, before the second, the resend's lookup (the gateway had nothing: 404).
    assertThat(proxy.getRequestCount()).isEqualTo(3);
    assertThat(gateway.calls()).isEqualTo(1);
  }

  @Test
  void aProxysServiceUnavailableWithADeeplyNestedBodyIsResentNotThrown() {
    proxy.setDispatcher(
        new Proxy(new MockResponse.Builder().code(503).body("[".repeat(100_000)).build()));

    Outcome outcome =
        gateway
            .client()
            .baseUrl(proxy.url("/"))
            .build()
            .transcribe(note(2), TranscriptionOptions.defaults());

    assertThat(outcome).isInstanceOf(Outcome.Transcribed.class);
    assertThat(outcome.attempts()).isEqualTo(2);
    assertThat(gateway.calls()).isEqualTo(1);
  }

  // The note's file deleted or rewritten while the provider is failing.

  @Test
  void aNoteDeletedAfterAFailedAttemptEndsUnreadableWithoutAnotherUpload() throws Exception {
    gateway.failFirst(1);
    Path file = dir.resolve("a.wav");
    Files.write(file, EndToEndTest.wav(1000, 11));
    VoiceNote note = VoiceNote.ofFile(file);

    Outcome outcome =
        gateway
            .client()
            .timing(afterEachFailure(() -> Files.delete(file)))
            .build()
            .transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isInstanceOf(Outcome.Unreadable.class);
    assertThat(gateway.calls()).isEqualTo(1);
  }

  @Test
  void aNoteRewrittenAfterAFailedAttemptIsNotSentWithItsOldHash() throws Exception {
    gateway.failFirst(1);
    Path file = dir.resolve("b.wav");
    Files.write(file, EndToEndTest.wav(1000, 12));
    VoiceNote note = VoiceNote.ofFile(file);

    Outcome outcome =
        gateway
            .client()
            .timing(afterEachFailure(() -> Files.write(file, EndToEndTest.wav(1000, 13))))
            .build()
            .transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isInstanceOf(Outcome.AudioChanged.class);
    assertThat(((Outcome.AudioChanged) outcome).hashedSha256()).isEqualTo(note.sha256());
    assertThat(gateway.calls()).isEqualTo(1);
  }

  // The app's own cancellations while the engine is working.

  @Test
  void theAppCancellingItsOwnOkHttpCallsEndsTheNoteWithoutAResend() throws Exception {
    gateway.holdCalls();
    OkHttpClient appHttp = new OkHttpClient();
    TranscriptionHandle handle =
        gateway
            .client()
            .okHttpClient(appHttp)
            .build()
            .transcribeAsync(note(3), TranscriptionOptions.defaults());
    assertThat(gateway.awaitFirstCall()).isTrue();

    appHttp.dispatcher().cancelAll();

    assertThat(handle.await(Duration.ofSeconds(10))).isEqualTo(new Outcome.Cancelled(1));
    assertThat(gateway.calls()).isEqualTo(1);
  }

  @Test
  void cancellingTheFutureEndsTheNoteWithoutAResend() throws Exception {
    gateway.holdCalls();
    CompletableFuture<Outcome> ended = new CompletableFuture<>();
    TranscriptionHandle handle =
        gateway
            .client()
            .build()
            .transcribeAsync(
                note(4),
                TranscriptionOptions.defaults(),
                CallOptions.defaults().withListener(endedInto(ended)));
    assertThat(gateway.awaitFirstCall()).isTrue();

    assertThat(handle.outcome().cancel(true)).isTrue();

    assertThat(ended.get(10, TimeUnit.SECONDS)).isEqualTo(new Outcome.Cancelled(1));
    assertThat(gateway.calls()).isEqualTo(1);
  }

  // Several notes in flight, and a note whose length only its container tells.

  @Test
  void notesInFlightTogetherEachHearOnlyTheirOwnEventsAndARefusalIsARefusal() throws Exception {
    List<String> firstKeys = new CopyOnWriteArrayList<>();
    List<String> secondKeys = new CopyOnWriteArrayList<>();
    CompletableFuture<Outcome> secondEnded = new CompletableFuture<>();
    BoloClient bolo = gateway.client().build();

    TranscriptionHandle audio =
        bolo.transcribeAsync(
            note(5),
            TranscriptionOptions.defaults(),
            CallOptions.defaults().withListener(keysInto(firstKeys, null)));
    TranscriptionHandle notAudio =
        bolo.transcribeAsync(
            VoiceNote.ofBytes(
                "not audio at all".getBytes(java.nio.charset.StandardCharsets.US_ASCII), "x.wav"),
            TranscriptionOptions.defaults(),
            CallOptions.defaults().withListener(keysInto(secondKeys, secondEnded)));

    assertThat(audio.await(Duration.ofSeconds(10))).isInstanceOf(Outcome.Transcribed.class);
    Outcome refused = notAudio.await(Duration.ofSeconds(10));
    assertThat(refused)
        .isInstanceOfSatisfying(Outcome.Refused.class, r -> assertThat(r.status()).isEqualTo(415));
    assertThat(secondEnded.get(10, TimeUnit.SECONDS)).isEqualTo(refused);
    assertThat(firstKeys).isNotEmpty().containsOnly(audio.noteKey());
    assertThat(secondKeys).isNotEmpty().containsOnly(notAudio.noteKey());
  }

  @Test
  void anM4aNotesLengthIsTheOneTheGatewayMeasures() throws Exception {
    Path m4a =
        Path.of(
            Objects.requireNonNull(getClass().getResource("/audio/aac-moov-at-end.m4a")).toURI());
    VoiceNote note = VoiceNote.ofFile(m4a);

    Outcome outcome = gateway.client().build().transcribe(note, TranscriptionOptions.defaults());

    assertThat(note.durationMs()).isPresent();
    assertThat(outcome)
        .isInstanceOfSatisfying(
            Outcome.Transcribed.class,
            t -> assertThat(t.transcript().durationMs()).isEqualTo(note.durationMs().getAsLong()));
  }

  private static VoiceNote note(long seed) {
    return VoiceNote.ofBytes(EndToEndTest.wav(1000, seed), "note-" + seed + ".wav");
  }

  /** Something done to the note during a pause. */
  @FunctionalInterface
  private interface Change {
    void run() throws IOException;
  }

  /** No real pauses; {@code change} runs during each, before the next attempt. */
  private static Timing afterEachFailure(Change change) {
    Scheduler scheduler =
        (pause, next) -> {
          try {
            change.run();
          } catch (IOException e) {
            throw new IllegalStateException(e);
          }
          next.run();
          return () -> {};
        };
    return Timing.builder().scheduler(scheduler).build();
  }

  private static TranscriptionListener endedInto(CompletableFuture<Outcome> ended) {
    return keysInto(new CopyOnWriteArrayList<>(), ended);
  }

  private static TranscriptionListener keysInto(
      List<String> keys, @org.jspecify.annotations.Nullable CompletableFuture<Outcome> ended) {
    return new TranscriptionListener() {
      @Override
      public void attemptStarted(Attempt attempt) {
        keys.add(attempt.idempotencyKey());
      }

      @Override
      public void uploadProgress(Attempt attempt, long bytesSent, long bytesTotal) {
        keys.add(attempt.idempotencyKey());
      }

      @Override
      public void ended(String noteKey, Outcome outcome) {
        keys.add(noteKey);
        if (ended != null) {
          ended.complete(outcome);
        }
      }
    };
  }

  /**
   * A reverse proxy in front of the gateway that answers the first request itself, as a load
   * balancer or CDN can, and forwards the rest unchanged.
   */
  private final class Proxy extends Dispatcher {
    private final Deque<MockResponse> first = new ArrayDeque<>();

    Proxy(MockResponse firstAnswer) {
      first.add(firstAnswer);
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
      synchronized (first) {
        MockResponse scripted = first.poll();
        if (scripted != null) {
          return scripted;
        }
      }
      HttpUrl target =
          Objects.requireNonNull(HttpUrl.parse(gateway.baseUrl()))
              .newBuilder()
              .encodedPath(request.getUrl().encodedPath())
              .encodedQuery(request.getUrl().encodedQuery())
              .build();
      Request.Builder forward = new Request.Builder().url(target);
      // A resend's lookup is a GET without a body; uploads are POSTs.
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
        return new MockResponse.Builder().code(answer.code()).body(answer.body().string()).build();
      } catch (IOException e) {
        return new MockResponse.Builder().code(502).body("proxy: " + e).build();
      }
    }
  }
}
