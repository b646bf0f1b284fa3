package dev.bolo.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.client.Failure.NetworkKind;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** The resend policy on a fake clock: every decision, no real waiting. */
class ResenderTest {

  private static final Transcript TEXT =
      new Transcript("hello", false, "ab", 1000L, "req", "offline");

  private final FakeTime time = new FakeTime();
  private final FakeScheduler sleeper = new FakeScheduler(time);
  private final RecordingListener listener = new RecordingListener();
  private final CancelFlag flag = new CancelFlag();
  private final Script script = new Script();

  ResenderTest() {
    sleeper.cancelledWhen(flag::isCancelled);
  }

  private Outcome run() {
    return run(
        new Resender(time.ticker(), sleeper, new Random(1)),
        ResendPolicy.standard().withoutJitter(),
        listener);
  }

  private Outcome run(Resender resender, ResendPolicy policy, TranscriptionListener listener) {
    return resender
        .start("key-1", policy, List.of(listener), flag, script, new CompletableFuture<>())
        .join();
  }

  static Stream<Failure> transientFailures() {
    return Stream.of(
        new Failure.Network(NetworkKind.CONNECTION, "ConnectException: Connection refused"),
        new Failure.Network(NetworkKind.UNKNOWN_HOST, "UnknownHostException: bolo.invalid"),
        new Failure.Network(NetworkKind.TIMEOUT, "SocketTimeoutException: timeout"),
        http(500),
        http(502),
        http(503),
        http(504),
        http(520),
        http(521),
        http(522),
        http(523),
        http(524),
        httpRetryAfter(429, Duration.ofSeconds(1)));
  }

  static Stream<Failure> permanentHttpFailures() {
    return Stream.of(
        http(400), http(401), http(402), http(403), http(404), http(409), http(413), http(415),
        http(422), http(429), http(501), http(505), http(525), http(200));
  }

  @ParameterizedTest
  @MethodSource("transientFailures")
  void transientFailureIsResentAndTheResendCanSucceed(Failure failure) {
    script.fail(failure).succeed();

    Outcome outcome = run();

    assertThat(outcome).isEqualTo(new Outcome.Transcribed(TEXT, 2));
    assertThat(sleeper.pauses()).hasSize(1);
  }

  @ParameterizedTest
  @MethodSource("permanentHttpFailures")
  void permanentHttpFailureIsRefusedAfterOneAttempt(Failure failure) {
    script.fail(failure);

    Outcome outcome = run();

    assertThat(outcome).isEqualTo(new Outcome.Refused((Failure.Http) failure, 1));
    assertThat(sleeper.pauses()).isEmpty();
    assertThat(listener.events).containsExactly("start 1", "refused 1: " + failure.reason());
  }

  @ParameterizedTest
  @CsvSource({"TLS", "PROTOCOL"})
  void networkFailureNoResendCanFixEndsAfterOneAttempt(NetworkKind kind) {
    Failure failure = new Failure.Network(kind, "SSLPeerUnverifiedException: wrong host");
    script.fail(failure);

    assertThat(run()).isEqualTo(new Outcome.GaveUp(failure, 1));
    assertThat(sleeper.pauses()).isEmpty();
  }

  @Test
  void pausesAreTwoFiveAndTenSecondsThenItGivesUpAfterFourAttempts() {
    script.fail(http(503)).fail(http(502)).fail(http(504)).fail(http(500));

    Outcome outcome = run();

    assertThat(outcome).isEqualTo(new Outcome.GaveUp(http(500), 4));
    assertThat(sleeper.pauses())
        .containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(10));
    assertThat(listener.events)
        .containsExactly(
            "start 1",
            "resend 1 after PT2S: HTTP 503 code_503",
            "start 2",
            "resend 2 after PT5S: HTTP 502 code_502",
            "start 3",
            "resend 3 after PT10S: HTTP 504 code_504",
            "start 4",
            "gave up 4: HTTP 500 code_500");
  }

  @Test
  void everyAttemptSharesTheKeyAndHasAFreshRequestIdNamingItsNumber() {
    script.fail(http(503)).fail(http(503)).succeed();

    run();

    assertThat(listener.attempts).extracting(Attempt::idempotencyKey).containsOnly("key-1");
    assertThat(listener.attempts).extracting(Attempt::requestId).doesNotHaveDuplicates();
    assertThat(listener.attempts.get(0).requestId()).endsWith("-a1");
    assertThat(listener.attempts.get(2).requestId()).endsWith("-a3");
  }

  /**
   * The first attempt fails after the given time; with the 2 s pause the second attempt would start
   * at 89.999, 90.000 or 90.001 s. The window admits a start at 90 s but not after.
   */
  @ParameterizedTest
  @CsvSource({"87999, 2", "88000, 2", "88001, 1"})
  void aResendStartsOnlyIfItsStartIsWithinNinetySeconds(long firstAttemptMillis, int attempts) {
    script.fail(http(503), Duration.ofMillis(firstAttemptMillis)).succeed();

    Outcome outcome = run();

    assertThat(outcome.attempts()).isEqualTo(attempts);
    if (attempts == 1) {
      assertThat(outcome).isEqualTo(new Outcome.GaveUp(http(503), 1));
      assertThat(sleeper.pauses()).isEmpty();
    } else {
      assertThat(time.elapsed()).isLessThanOrEqualTo(Duration.ofSeconds(90));
    }
  }

  @Test
  void retryAfterInSecondsLongerThanThePauseReplacesIt() {
    script.fail(httpRetryAfter(503, Duration.ofSeconds(7))).succeed();

    assertThat(run()).isEqualTo(new Outcome.Transcribed(TEXT, 2));
    assertThat(sleeper.pauses()).containsExactly(Duration.ofSeconds(7));
  }

  @Test
  void retryAfterShorterThanThePauseKeepsThePause() {
    script.fail(httpRetryAfter(503, Duration.ofSeconds(1))).succeed();

    run();

    assertThat(sleeper.pauses()).containsExactly(Duration.ofSeconds(2));
  }

  @Test
  void retryAfterThatWouldCrossTheWindowGivesUpAtOnceWithoutSleeping() {
    Failure.Http failure = httpRetryAfter(429, Duration.ofSeconds(91));
    script.fail(failure).succeed();

    assertThat(run()).isEqualTo(new Outcome.GaveUp(failure, 1));
    assertThat(sleeper.pauses()).isEmpty();
    assertThat(time.elapsed()).isZero();
  }

  @Test
  void retryAfterEndingExactlyAtTheWindowIsHonoured() {
    script.fail(httpRetryAfter(503, Duration.ofSeconds(80)), Duration.ofSeconds(10)).succeed();

    assertThat(run()).isEqualTo(new Outcome.Transcribed(TEXT, 2));
    assertThat(sleeper.pauses()).containsExactly(Duration.ofSeconds(80));
  }

  @Test
  void cancelBeforeTheFirstAttemptStartsNone() {
    flag.cancel();
    script.succeed();

    assertThat(run()).isEqualTo(new Outcome.Cancelled(0));
    assertThat(listener.events).containsExactly("cancelled 0");
  }

  @Test
  void cancelDuringAnAttemptEndsTheNoteWithoutAResend() {
    script.cancelThenFail(http(503)).succeed();

    assertThat(run()).isEqualTo(new Outcome.Cancelled(1));
    assertThat(sleeper.pauses()).isEmpty();
    assertThat(listener.events).containsExactly("start 1", "cancelled 1");
  }

  @Test
  void cancelIsFinalEvenWhenTheAttemptInFlightSucceeds() {
    script.cancelThenSucceed();

    assertThat(run()).isEqualTo(new Outcome.Cancelled(1));
  }

  @Test
  void cancelDuringAPauseStartsNoFurtherAttempt() {
    sleeper.duringPause(index -> flag.cancel());
    script.fail(http(503)).succeed();

    assertThat(run()).isEqualTo(new Outcome.Cancelled(1));
    assertThat(listener.events)
        .containsExactly("start 1", "resend 1 after PT2S: HTTP 503 code_503", "cancelled 1");
    assertThat(time.elapsed()).isZero();
  }

  @Test
  void cancelWakesARealPauseAtOnce() throws Exception {
    CountDownLatch pausing = new CountDownLatch(1);
    TranscriptionListener onPause =
        new TranscriptionListener() {
          @Override
          public void resendScheduled(Attempt failed, Duration delay, Failure reason) {
            pausing.countDown();
          }
        };
    Resender withRealTime = new Resender(System::nanoTime, Scheduler.system(), new Random(1));
    // Retry-After 80 s: a pause that, unwoken, would outlast this test's timeout many times.
    script.fail(httpRetryAfter(503, Duration.ofSeconds(80))).succeed();
    CompletableFuture<Outcome> outcome =
        withRealTime.start(
            "key-1",
            ResendPolicy.standard(),
            List.of(onPause),
            flag,
            script,
            new CompletableFuture<>());

    assertThat(pausing.await(10, TimeUnit.SECONDS)).isTrue();
    flag.cancel();

    assertThat(outcome.get(10, TimeUnit.SECONDS)).isEqualTo(new Outcome.Cancelled(1));
  }

  @Test
  void jitteredPausesStayWithinTwentyPercentOfTheSchedule() {
    script.fail(http(503)).fail(http(503)).fail(http(503)).fail(http(503));
    Resender jittered = new Resender(time.ticker(), sleeper, new Random(42));

    run(jittered, ResendPolicy.standard(), listener);

    List<Duration> pauses = sleeper.pauses();
    assertThat(pauses).hasSize(3);
    assertThat(pauses.get(0)).isBetween(Duration.ofMillis(1600), Duration.ofMillis(2400));
    assertThat(pauses.get(1)).isBetween(Duration.ofSeconds(4), Duration.ofSeconds(6));
    assertThat(pauses.get(2)).isBetween(Duration.ofSeconds(8), Duration.ofSeconds(12));
    assertThat(pauses)
        .doesNotContain(Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(10));
  }

  private static Failure.Http http(int status) {
    return new Failure.Http(status, "code_" + status, "status " + status, null, null);
  }

  private static Failure.Http httpRetryAfter(int status, Duration retryAfter) {
    return new Failure.Http(status, "code_" + status, "status " + status, null, retryAfter);
  }

  /** Attempts scripted in order: each takes some fake time, then returns its result. */
  private final class Script implements Resender.Sender {
    private final Deque<Step> steps = new ArrayDeque<>();

    private record Step(Duration takes, Resender.AttemptResult result, boolean cancel) {}

    Script fail(Failure failure) {
      return fail(failure, Duration.ZERO);
    }

    Script fail(Failure failure, Duration takes) {
      steps.add(new Step(takes, new Resender.Failed(failure), false));
      return this;
    }

    Script succeed() {
      steps.add(new Step(Duration.ZERO, new Resender.Succeeded(TEXT), false));
      return this;
    }

    Script cancelThenFail(Failure failure) {
      steps.add(new Step(Duration.ZERO, new Resender.Failed(failure), true));
      return this;
    }

    Script cancelThenSucceed() {
      steps.add(new Step(Duration.ZERO, new Resender.Succeeded(TEXT), true));
      return this;
    }

    @Override
    public void send(Attempt attempt, Consumer<Resender.AttemptResult> done) {
      Step step = steps.poll();
      if (step == null) {
        throw new AssertionError("unscripted attempt " + attempt);
      }
      time.advance(step.takes());
      if (step.cancel()) {
        flag.cancel();
      }
      done.accept(step.result());
    }
  }
}
