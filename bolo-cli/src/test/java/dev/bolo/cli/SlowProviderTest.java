package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.client.BoloClient;
import dev.bolo.client.Outcome;
import dev.bolo.client.ResendPolicy;
import dev.bolo.client.Timing;
import dev.bolo.client.TranscriptionOptions;
import dev.bolo.client.VoiceNote;
import dev.bolo.server.App;
import dev.bolo.server.config.ServerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A provider slower than OkHttp's 10 s defaults and slower than the phone's read timeout: the
 * gateway keeps waiting (PROTOCOL.md rule 7), so the phone's resend joins the running call instead
 * of paying for a second one.
 */
class SlowProviderTest {

  private static final String TOKEN = "slow-provider-token-0123456789";

  @TempDir Path dir;
  private final AtomicInteger calls = new AtomicInteger();
  private @Nullable MockWebServer provider;
  private @Nullable App gateway;

  @AfterEach
  void stop() {
    if (gateway != null) {
      gateway.close();
    }
    if (provider != null) {
      provider.close();
    }
  }

  /**
   * Starts the gateway on a provider that answers once {@code answerWhen} has happened: the phone
   * gave up its attempt, or the provider's latency passed.
   */
  private String start(ProviderAnswers answerWhen, Map<String, String> extra) throws Exception {
    MockWebServer fake = new MockWebServer();
    fake.setDispatcher(
        new Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
            int call = calls.incrementAndGet();
            answerWhen.await();
            return new MockResponse.Builder()
                .code(200)
                .body("{\"text\":\"slow note " + call + "\"}")
                .build();
          }
        });
    fake.start();
    provider = fake;
    Map<String, String> env = new HashMap<>();
    env.put("BOLO_PORT", "0");
    env.put("BOLO_ENGINE", "openai");
    env.put("BOLO_OPENAI_BASE_URL", fake.url("/v1").toString());
    env.put("BOLO_DATA_DIR", dir.resolve("data").toString());
    env.put("BOLO_DEVICE_TOKENS", "phone=" + TOKEN);
    env.putAll(extra);
    gateway = App.create(ServerConfig.fromMap(env)).start();
    return "http://127.0.0.1:" + gateway.port();
  }

  /** When the provider sends its answer. */
  @FunctionalInterface
  private interface ProviderAnswers {
    void await() throws InterruptedException;
  }

  @Test
  void withDeadlinesScaledDownTheResendsOfAnImpatientPhoneJoinTheOneProviderCall()
      throws Exception {
    // Gateway: 10 s + the note (1 s) = 11 s; phone: 1 s read timeout, resends at once. The
    // provider answers only once the phone has given up its first attempt, however long the
    // machine takes to get there.
    CountDownLatch phoneGaveUp = new CountDownLatch(1);
    String base =
        start(
            () -> phoneGaveUp.await(60, TimeUnit.SECONDS),
            Map.of(
                "BOLO_UPSTREAM_TIMEOUT", "10s",
                "BOLO_UPSTREAM_TIMEOUT_MAX", "20s",
                "BOLO_CLIENT_READ_TIMEOUT", "1s",
                "BOLO_CLIENT_READ_TIMEOUT_MAX", "1s",
                "BOLO_CLIENT_RESEND_PAUSES", "0s"));
    BoloClient phone =
        BoloClient.builder()
            .baseUrl(base)
            .token(TOKEN)
            .policy(ResendPolicy.standard().withoutJitter())
            .timing(
                Timing.builder()
                    .scheduler(
                        (pause, next) -> {
                          phoneGaveUp.countDown();
                          return GatewayExtension.runAtOnce(pause, next);
                        })
                    .build())
            .uploadTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1))
            .build();

    Outcome outcome =
        phone.transcribe(
            VoiceNote.ofBytes(EndToEndTest.wav(1000, 77), "slow.wav"),
            TranscriptionOptions.defaults());

    assertThat(outcome)
        .isInstanceOfSatisfying(
            Outcome.Transcribed.class,
            t -> {
              assertThat(t.transcript().text()).isEqualTo("slow note 1");
              assertThat(t.transcript().deduplicated()).isTrue();
              assertThat(t.attempts()).isGreaterThan(1);
            });
    assertThat(calls.get()).isEqualTo(1);
  }

  @Test
  void boloTranscribeGetsTheTextOfAProviderTaking36SecondsOnAOneSecondNoteFromOneCall()
      throws Exception {
    // Real time and the default deadlines on both sides: the phone's read timeout (30.5 s) ends
    // first, it pauses about 2 s and resends, and the resend joins the gateway's running call.
    // The provider's latency is the behaviour under test: longer than the phone's read timeout,
    // which a busy machine cannot make it shorter than.
    String base = start(() -> Thread.sleep(Duration.ofSeconds(36)), Map.of());
    Path note = Files.write(dir.resolve("slow.wav"), EndToEndTest.wav(1000, 78));

    CommandRun run =
        CommandRun.of(new TranscribeCommand(), "--server", base, "--token", TOKEN, note.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("slow note 1");
    assertThat(run.err()).contains("retrying");
    assertThat(calls.get()).isEqualTo(1);
  }
}
