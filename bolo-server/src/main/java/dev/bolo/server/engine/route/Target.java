package dev.bolo.server.engine.route;

import dev.bolo.server.engine.EngineRequest;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.engine.SpeechEngine;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code engine/model} of a route with what guards it: a circuit breaker (opens at half of the
 * last 10 calls failing, at least 4 of them, or at once for a provider's {@code Retry-After}; after
 * 30 s lets 2 real notes probe it), and its engine's calls in flight ({@code
 * BOLO_ENGINE_<NAME>_MAX_CONCURRENT}) and calls started per minute ({@code
 * BOLO_ENGINE_<NAME>_MAX_PER_MINUTE}), shared with the engine's other targets. Thread safe.
 */
final class Target {

  private static final Logger log = LoggerFactory.getLogger(Target.class);

  /** How long a breaker that opened on failures stays open before real notes probe it. */
  static final Duration OPEN_FOR = Duration.ofSeconds(30);

  private final Route.Hop hop;
  private final SpeechEngine engine;
  private final CircuitBreaker breaker;
  private final @Nullable Semaphore inFlight;
  private final int maxConcurrent;
  private final @Nullable CallsPerMinute perMinute;
  private final Clock clock;

  /**
   * @param inFlight the calls in flight of the target's engine, shared by all its targets; null
   *     when unbounded
   * @param perMinute the calls per minute of the target's engine, shared likewise
   * @param clock the elapsed time the breaker's open state lasts on
   */
  Target(
      Route.Hop hop,
      SpeechEngine engine,
      OptionalInt maxConcurrent,
      @Nullable Semaphore inFlight,
      @Nullable CallsPerMinute perMinute,
      Clock clock) {
    this.hop = Objects.requireNonNull(hop, "hop");
    this.engine = Objects.requireNonNull(engine, "engine");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.breaker =
        CircuitBreaker.of(
            hop.label(),
            CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(10)
                .minimumNumberOfCalls(4)
                .failureRateThreshold(50)
                .waitDurationInOpenState(OPEN_FOR)
                .permittedNumberOfCallsInHalfOpenState(2)
                .automaticTransitionFromOpenToHalfOpenEnabled(true)
                .recordExceptions(TargetFailure.class)
                .clock(clock)
                .build());
    this.maxConcurrent = maxConcurrent.orElse(0);
    this.inFlight = inFlight;
    this.perMinute = perMinute;
  }

  Route.Hop hop() {
    return hop;
  }

  SpeechEngine engine() {
    return engine;
  }

  CircuitBreaker breaker() {
    return breaker;
  }

  /** Calls in flight now. */
  int inFlight() {
    return inFlight == null ? 0 : maxConcurrent - inFlight.availablePermits();
  }

  /** Notes waiting for a call in flight to end. */
  int queued() {
    return inFlight == null ? 0 : inFlight.getQueueLength();
  }

  /** The most calls in flight, 0 when unbounded. */
  int maxConcurrent() {
    return maxConcurrent;
  }

  /**
   * Lets one call through, waiting up to {@code wait} for room in flight.
   *
   * @return the admission to release when the call ends, or the refusal and how long until this
   *     target may take a call again
   */
  Admission admit(Duration wait) throws InterruptedException {
    if (!breaker.tryAcquirePermission()) {
      return new Admission.Refused("its circuit breaker is open", untilHalfOpen());
    }
    boolean room;
    try {
      room = inFlight == null || inFlight.tryAcquire(wait.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      breaker.releasePermission();
      throw e;
    }
    if (!room) {
      breaker.releasePermission();
      return new Admission.Refused(maxConcurrent + " calls are in flight", Duration.ofSeconds(1));
    }
    if (perMinute != null) {
      Duration retryAfter = perMinute.tryStart();
      if (!retryAfter.isZero()) {
        release();
        breaker.releasePermission();
        return new Admission.Refused("its calls per minute are spent", retryAfter);
      }
    }
    return new Admission.Admitted();
  }

  /**
   * Calls this target's engine for its model with {@code timeout}, giving back the room in flight
   * the admission took. An engine's bug fails this call, not the route: it is a failure the breaker
   * counts.
   */
  EngineResult call(EngineRequest request, Duration timeout) {
    Settings asked = request.settings();
    Settings settings =
        new Settings(
            engine.name(),
            hop.model(),
            asked.language(),
            asked.prompt(),
            asked.temperature(),
            asked.responseFormat(),
            asked.timestampGranularities(),
            asked.task());
    try {
      return engine.transcribe(request.asking(settings, timeout));
    } catch (RuntimeException bug) {
      log.error("engine {} failed unexpectedly", hop.label(), bug);
      return new EngineResult.Failed("the " + hop.engine() + " engine failed");
    } finally {
      release();
    }
  }

  /** Tells the breaker how a call that took {@code tookNanos} ended. */
  void record(EngineResult result, long tookNanos) {
    switch (result) {
      case EngineResult.Transcribed t -> breaker.onSuccess(tookNanos, TimeUnit.NANOSECONDS);
      case EngineResult.Failure f when f.countsAgainstProvider() -> {
        breaker.onError(tookNanos, TimeUnit.NANOSECONDS, new TargetFailure(f.message()));
        Duration wait = f.retryAfter();
        // The provider said when to come back: nothing is sent to it before.
        if (wait != null) {
          openFor(wait);
        }
      }
      // The gateway's own trouble says nothing of the provider: the call is not counted.
      case EngineResult.Failure f when !f.isNoteRefusal() -> breaker.releasePermission();
      // The note's own fault: the provider answered as it should.
      case EngineResult.Failure f -> breaker.onSuccess(tookNanos, TimeUnit.NANOSECONDS);
    }
  }

  /** Gives back the room in flight an admission took. */
  void release() {
    if (inFlight != null) {
      inFlight.release();
    }
  }

  /** How long until the open breaker lets a probe through, at least a second. */
  private Duration untilHalfOpen() {
    long millis =
        breaker.getState() == CircuitBreaker.State.OPEN
            ? Math.max(1000, openRemainingMillis())
            : 1000;
    return Duration.ofMillis(millis);
  }

  private volatile long openUntilMillis;

  /** Opens the breaker for {@code duration}: the provider said when to come back. */
  void openFor(Duration duration) {
    openUntilMillis = clock.millis() + duration.toMillis();
    breaker.transitionToOpenStateFor(duration);
  }

  private long openRemainingMillis() {
    long told = openUntilMillis - clock.millis();
    return told > 0 ? told : OPEN_FOR.toMillis();
  }

  /** Whether a call was let through, and if not, why and until when. */
  sealed interface Admission {
    record Admitted() implements Admission {}

    record Refused(String why, Duration retryAfter) implements Admission {}
  }

  /** What the breaker counts as a failed call: recorded, never thrown. */
  static final class TargetFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TargetFailure(String message) {
      super(message, null, false, false);
    }
  }
}
