package dev.bolo.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bolo.server.engine.openai.OpenAiCompatibleEngine;
import dev.bolo.server.engine.openai.OpenAiConfig;
import dev.bolo.server.testing.BytesAudio;
import dev.bolo.testkit.Await;
import dev.bolo.testkit.FakeTicker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.junit5.StartStop;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The gateway-wide bound on provider answer bytes held at once. */
class AnswerBudgetTest {

  private static final long MIB = 1024 * 1024;

  @StartStop final MockWebServer provider = new MockWebServer();

  @Test
  void chargesThatFitAreGrantedAndClosingAHoldGivesItsBytesBack() throws Exception {
    AnswerBudget budget = new AnswerBudget(MIB, Duration.ofSeconds(5), System::nanoTime);
    try (AnswerBudget.Hold first = new AnswerBudget.Hold();
        AnswerBudget.Hold second = new AnswerBudget.Hold()) {
      first.charge(budget, 600_000);
      second.charge(budget, 400_000);
      assertThat(budget.inUseBytes()).isEqualTo(1_000_000);
      assertThat(first.heldBytes()).isEqualTo(600_000);

      first.close();

      assertThat(budget.inUseBytes()).isEqualTo(400_000);
      assertThat(first.heldBytes()).isZero();
    }
    assertThat(budget.inUseBytes()).isZero();
  }

  @Test
  void anAnswerLargerThanTheWholeBudgetIsReadAlone() throws Exception {
    AnswerBudget budget = new AnswerBudget(MIB, Duration.ZERO, System::nanoTime);
    try (AnswerBudget.Hold large = new AnswerBudget.Hold()) {
      large.charge(budget, 3 * MIB);
      large.charge(budget, MIB);
      assertThat(budget.inUseBytes()).isEqualTo(4 * MIB);
    }
  }

  @Test
  void anAnswerThatDoesNotFitWaitsUntilAnotherIsReleased() throws Exception {
    AnswerBudget budget = new AnswerBudget(MIB, Duration.ofSeconds(30), System::nanoTime);
    AnswerBudget.Hold first = new AnswerBudget.Hold();
    first.charge(budget, 800_000);
    try (AnswerBudget.Hold second = new AnswerBudget.Hold()) {
      CompletableFuture<Void> waiting =
          CompletableFuture.runAsync(
              () -> {
                try {
                  second.charge(budget, 800_000);
                } catch (AnswerBudget.Exhausted e) {
                  throw new IllegalStateException(e);
                }
              });
      Await.until(() -> budget.waitingAnswers() == 1, () -> "no answer waits for room");
      assertThat(waiting).as("still waiting for room").isNotDone();

      first.close();

      waiting.get(10, TimeUnit.SECONDS);
      assertThat(budget.inUseBytes()).isEqualTo(800_000);
    }
  }

  @Test
  void aWaitThatOutlastsItsBoundIsRefused() throws Exception {
    FakeTicker ticker = FakeTicker.atOneSecond();
    AtomicInteger looks = new AtomicInteger();
    LongSupplier looked =
        () -> {
          looks.incrementAndGet();
          return ticker.getAsLong();
        };
    AnswerBudget budget = new AnswerBudget(MIB, Duration.ofMillis(200), looked);
    try (AnswerBudget.Hold first = new AnswerBudget.Hold();
        AnswerBudget.Hold second = new AnswerBudget.Hold()) {
      first.charge(budget, 800_000);
      CompletableFuture<Void> waiting =
          CompletableFuture.runAsync(
              () -> {
                try {
                  second.charge(budget, 800_000);
                } catch (AnswerBudget.Exhausted e) {
                  throw new CompletionException(e);
                }
              });

      // A park of the bound ended and the ticker, held still, says the bound has not passed.
      Await.until(() -> looks.get() >= 3, () -> "the waiter never looked at the ticker again");
      assertThat(waiting).as("still waiting within its bound").isNotDone();

      ticker.advance(Duration.ofMillis(200));

      assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS))
          .hasCauseInstanceOf(AnswerBudget.Exhausted.class);
      assertThat(budget.inUseBytes()).isEqualTo(800_000);
      assertThat(budget.waitingAnswers()).isZero();
    }
  }

  @Test
  // A bound on a hang: a wait that ignored the exchange's 300 ms would last the budget's hour.
  @Timeout(60)
  void noWaitOutlastsTheExchangesOwnDeadline() throws Exception {
    AnswerBudget budget = new AnswerBudget(MIB, Duration.ofHours(1), System::nanoTime);
    try (AnswerBudget.Hold first = new AnswerBudget.Hold();
        AnswerBudget.Hold second = new AnswerBudget.Hold(Duration.ofMillis(300))) {
      first.charge(budget, 800_000);
      second.begin(budget);

      assertThatThrownBy(() -> second.charge(budget, 800_000))
          .isInstanceOf(AnswerBudget.Exhausted.class);
    }
  }

  @Test
  // A bound on a hang: an answer that waited would wait the budget's hour.
  @Timeout(60)
  void anAnswerThatHoldsBytesAndNeedsMoreThanIsLeftFailsWithoutWaiting() throws Exception {
    AnswerBudget budget = new AnswerBudget(MIB, Duration.ofHours(1), System::nanoTime);
    try (AnswerBudget.Hold first = new AnswerBudget.Hold();
        AnswerBudget.Hold second = new AnswerBudget.Hold()) {
      first.charge(budget, 500_000);
      second.charge(budget, 400_000);

      // Waiting here could leave both growing answers waiting for each other.
      assertThatThrownBy(() -> second.charge(budget, 200_000))
          .isInstanceOf(AnswerBudget.Exhausted.class);

      assertThat(second.heldBytes()).isEqualTo(400_000);
    }
  }

  @Test
  void theEngineAnswersUnavailableWithRetryAfterWhenNoRoomComesAndTranscribesOnceThereIs()
      throws Exception {
    AnswerBudget budget = new AnswerBudget(MIB, Duration.ofMillis(300), System::nanoTime);
    OkHttpClient http = AnswerLimit.applyTo(new OkHttpClient(), 32 * MIB, budget);
    OpenAiCompatibleEngine engine =
        OpenAiCompatibleEngine.create(
            new OpenAiConfig(provider.url("/v1").toString(), "key", "whisper-1", ""), http);
    String text = "a".repeat(600_000);
    for (int i = 0; i < 2; i++) {
      provider.enqueue(
          new MockResponse.Builder()
              .code(200)
              .setHeader("Content-Type", "application/json")
              .body("{\"text\":\"" + text + "\"}")
              .build());
    }

    try (AnswerBudget.Hold other = new AnswerBudget.Hold()) {
      other.charge(budget, 700_000);

      EngineResult refused = engine.transcribe(request());

      assertThat(refused)
          .isEqualTo(
              new EngineResult.Saturated(
                  "the gateway is busy reading other large provider answers",
                  Duration.ofSeconds(2)));
      assertThat(budget.inUseBytes()).isEqualTo(700_000);
    }

    EngineResult transcribed = engine.transcribe(request());

    assertThat(transcribed).isInstanceOf(EngineResult.Transcribed.class);
    assertThat(((EngineResult.Transcribed) transcribed).text()).isEqualTo(text);
    assertThat(budget.inUseBytes()).isZero();
    assertThat(provider.getRequestCount()).isEqualTo(2);
  }

  private static EngineRequest request() {
    Settings settings =
        Settings.canonical("openai", "whisper-1", null, null, null, null, null, List.of());
    return new EngineRequest(BytesAudio.wav(1000, 1), settings, Duration.ofSeconds(30), "req-1");
  }
}
