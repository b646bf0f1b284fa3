package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.client.BoloClient;
import dev.bolo.client.Outcome;
import dev.bolo.client.ResendPolicy;
import dev.bolo.client.Scheduler;
import dev.bolo.client.Timing;
import dev.bolo.client.TranscriptionOptions;
import dev.bolo.client.VoiceNote;
import dev.bolo.server.App;
import dev.bolo.server.ServerConfig;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SDK against the real gateway and a fake provider: resending is safe because the gateway
 * de-duplicates, and the provider is paid for one successful call per note.
 */
class EndToEndTest {

  private static final String TOKEN = "end-to-end-token-0123456789";

  @TempDir Path dataDir;
  private MockWebServer provider;
  private final AtomicInteger calls = new AtomicInteger();
  private final AtomicInteger successes = new AtomicInteger();
  private volatile int failFirst;
  private volatile Duration delay = Duration.ZERO;
  private App gateway;

  @BeforeEach
  void start() throws Exception {
    provider = new MockWebServer();
    provider.setDispatcher(
        new Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
            int call = calls.incrementAndGet();
            if (call <= failFirst) {
              return new MockResponse.Builder().code(503).body("{\"error\":\"busy\"}").build();
            }
            Thread.sleep(delay.toMillis());
            successes.incrementAndGet();
            return new MockResponse.Builder()
                .code(200)
                .body("{\"text\":\"note number " + call + "\"}")
                .build();
          }
        });
    provider.start();
    gateway =
        App.create(
                ServerConfig.fromMap(
                    Map.of(
                        "BOLO_PORT",
                        "0",
                        "BOLO_ENGINE",
                        "openai",
                        "BOLO_OPENAI_BASE_URL",
                        provider.url("/v1").toString(),
                        "BOLO_DATA_DIR",
                        dataDir.toString(),
                        "BOLO_DEVICE_TOKENS",
                        "phone=" + TOKEN)))
            .start();
  }

  @AfterEach
  void stop() {
    gateway.close();
    provider.close();
  }

  private BoloClient.Builder client() {
    return BoloClient.builder()
        .baseUrl("http://127.0.0.1:" + gateway.port())
        .token(TOKEN)
        .policy(ResendPolicy.standard().withoutJitter())
        // The pauses are the policy's business, tested on a fake clock; here they only slow us.
        .timing(Timing.builder().scheduler(EndToEndTest::runAtOnce).build());
  }

  @Test
  void aProviderThatFailsTwiceThenSucceedsIsPaidForOneSuccess() {
    failFirst = 2;
    Outcome outcome =
        client()
            .build()
            .transcribe(VoiceNote.ofBytes(wav(1000, 1), "a.wav"), TranscriptionOptions.defaults());
    assertThat(outcome)
        .isInstanceOfSatisfying(
            Outcome.Transcribed.class,
            t -> {
              assertThat(t.transcript().text()).isEqualTo("note number 3");
              assertThat(t.attempts()).isEqualTo(3);
            });
    assertThat(calls.get()).isEqualTo(3);
    assertThat(successes.get()).isEqualTo(1);
  }

  @Test
  void aClientThatTimesOutAndResendsGetsTheTextFromTheOneCall() {
    delay = Duration.ofSeconds(3);
    BoloClient impatient =
        client()
            .uploadTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1))
            .build();
    Outcome outcome =
        impatient.transcribe(
            VoiceNote.ofBytes(wav(1000, 2), "b.wav"), TranscriptionOptions.defaults());
    assertThat(outcome)
        .isInstanceOfSatisfying(
            Outcome.Transcribed.class,
            t -> {
              assertThat(t.transcript().text()).isEqualTo("note number 1");
              assertThat(t.transcript().deduplicated()).isTrue();
              assertThat(t.attempts()).isGreaterThan(1);
            });
    assertThat(calls.get()).isEqualTo(1);
  }

  @Test
  void aResendOfADeliveredNoteIsAReplayNotASecondCharge() {
    BoloClient bolo = client().build();
    byte[] audio = wav(1000, 3);
    Outcome first =
        bolo.transcribe(VoiceNote.ofBytes(audio, "c.wav"), TranscriptionOptions.defaults());
    Outcome again =
        bolo.transcribe(VoiceNote.ofBytes(audio, "c.wav"), TranscriptionOptions.defaults());
    assertThat(first).isInstanceOf(Outcome.Transcribed.class);
    assertThat(again)
        .isInstanceOfSatisfying(
            Outcome.Transcribed.class, t -> assertThat(t.transcript().deduplicated()).isTrue());
    assertThat(calls.get()).isEqualTo(1);
  }

  /** A scheduler without pauses: the next attempt starts as soon as it is scheduled. */
  static Scheduler.Pending runAtOnce(Duration pause, Runnable next) {
    next.run();
    return () -> {};
  }

  /** A 16 kHz mono 16-bit WAV of {@code millis} of seeded noise. */
  static byte[] wav(int millis, long seed) {
    int data = 32 * millis;
    ByteBuffer buffer = ByteBuffer.allocate(44 + data).order(ByteOrder.LITTLE_ENDIAN);
    buffer.put("RIFF".getBytes(StandardCharsets.US_ASCII)).putInt(36 + data);
    buffer.put("WAVE".getBytes(StandardCharsets.US_ASCII));
    buffer.put("fmt ".getBytes(StandardCharsets.US_ASCII)).putInt(16);
    buffer.putShort((short) 1).putShort((short) 1).putInt(16_000).putInt(32_000);
    buffer.putShort((short) 2).putShort((short) 16);
    buffer.put("data".getBytes(StandardCharsets.US_ASCII)).putInt(data);
    java.util.Random random = new java.util.Random(seed);
    while (buffer.remaining() >= 2) {
      buffer.putShort((short) (random.nextGaussian() * 800));
    }
    return buffer.array();
  }
}
