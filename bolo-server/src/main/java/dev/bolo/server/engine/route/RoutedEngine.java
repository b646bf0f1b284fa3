package dev.bolo.server.engine.route;

import dev.bolo.server.engine.EngineLimits;
import dev.bolo.server.engine.EngineRequest;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.LongestNote;
import dev.bolo.server.engine.ResponseFormat;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.engine.SpeechEngine;
import dev.bolo.server.engine.Task;
import dev.bolo.server.engine.TracedEngine;
import dev.bolo.server.health.Readiness;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes each note to the targets of the model it asks for, in order: a target whose breaker is
 * open, whose calls in flight or per minute are spent, that cannot be reached, answers 5xx or 429,
 * or times out is passed over for the next one within the note's deadline; a refusal of the note
 * itself (400, 413, 415, 422) is the note's answer. Each target but the last gets its share of the
 * time left, so the last always has some. The work is the route's, not the target's: a note one
 * target finished replays for every resend, whichever served it. Thread safe.
 */
public final class RoutedEngine implements SpeechEngine {

  /** The engine name in work keys and answers of routed work: the route decides, not a target. */
  public static final String NAME = "routes";

  private static final Logger log = LoggerFactory.getLogger(RoutedEngine.class);

  private static final AttributeKey<String> TARGET = AttributeKey.stringKey("bolo.engine.target");
  private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("bolo.engine.outcome");

  /** How long a note waits for a full target's calls in flight before trying the next target. */
  static final Duration WAIT_BEFORE_NEXT = Duration.ofMillis(250);

  private final Map<String, List<Target>> routes;
  private final List<Target> targets;
  private final RouteTargets built;
  private final RouteMeters meters = new RouteMeters();
  private final LongSupplier ticker;

  private RoutedEngine(RouteTargets built, LongSupplier ticker) {
    if (built.routes().isEmpty()) {
      throw new IllegalArgumentException("no route");
    }
    this.built = built;
    this.routes = built.routes();
    this.targets = built.all();
    this.ticker = Objects.requireNonNull(ticker, "ticker");
  }

  /**
   * The engine of {@code routing}: each engine made once by {@code engineOf}, each target of a
   * route guarded by its own breaker and limits (an engine's limits are shared by its targets).
   *
   * @param ticker elapsed nanoseconds for the notes' deadlines and the breakers' open states
   */
  public static RoutedEngine of(
      Routing routing,
      Function<EngineSpec, SpeechEngine> engineOf,
      BiFunction<String, Integer, CallsPerMinute> perMinuteOf,
      LongSupplier ticker) {
    return new RoutedEngine(
        RouteTargets.of(routing, engineOf, perMinuteOf, new TickerClock(ticker)), ticker);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String defaultModel() {
    return routes.keySet().iterator().next();
  }

  /** Timed segments only when every target of the route gives them: any may serve the note. */
  @Override
  public ResponseFormat richestFormat(String model) {
    return route(model).stream()
            .allMatch(t -> t.engine().richestFormat(t.hop().model()) == ResponseFormat.VERBOSE_JSON)
        ? ResponseFormat.VERBOSE_JSON
        : ResponseFormat.JSON;
  }

  /** Word times only when every target of the route gives them: any may serve the note. */
  @Override
  public boolean timesWords(String model) {
    return route(model).stream().allMatch(t -> t.engine().timesWords(t.hop().model()));
  }

  /** What every target of the route takes, so that a piece fits whichever serves it. */
  @Override
  public EngineLimits limits(String model) {
    List<EngineLimits> each =
        route(model).stream().map(t -> t.engine().limits(t.hop().model())).toList();
    return new EngineLimits(
        each.stream().mapToLong(EngineLimits::maxRequestBytes).min().orElseThrow(),
        each.stream().mapToLong(EngineLimits::maxSeconds).min().orElseThrow());
  }

  /** A note any target of the route takes is not refused before work. */
  @Override
  public LongestNote longestNote(String model) {
    return route(model).stream()
        .map(t -> t.engine().longestNote(t.hop().model()))
        .reduce(LongestNote::orLonger)
        .orElseThrow();
  }

  @Override
  public boolean canTranslate() {
    return targets.stream().anyMatch(t -> t.engine().canTranslate());
  }

  @Override
  public EngineResult transcribe(EngineRequest request) {
    Settings settings = request.settings();
    boolean translate = settings.task() == Task.TRANSLATE;
    List<Target> route =
        route(settings.model()).stream()
            .filter(t -> !translate || t.engine().canTranslate())
            .toList();
    if (route.isEmpty()) {
      // A resend would meet the same targets: refused, not "come back later".
      return new EngineResult.Rejected(
          "no engine of model " + settings.model() + " translates; ask another model");
    }
    long deadline = ticker.getAsLong() + request.timeout().toNanos();
    Tried tried = new Tried();
    for (int i = 0; i < route.size(); i++) {
      Target target = route.get(i);
      long left = deadline - ticker.getAsLong();
      // Less than a second is too short for any provider to answer.
      if (left <= TimeUnit.SECONDS.toNanos(1)) {
        break;
      }
      Target.Admission admission;
      try {
        // The last target may wait half the time left for a call in flight to end.
        admission =
            target.admit(i == route.size() - 1 ? Duration.ofNanos(left / 2) : WAIT_BEFORE_NEXT);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return new EngineResult.Unavailable("interrupted while waiting for a provider", null);
      }
      if (admission instanceof Target.Admission.Refused refused) {
        meters.skipped(target);
        Span.current().addEvent("target passed over", Attributes.of(TARGET, target.hop().label()));
        tried.passedOver(target, refused.why(), refused.retryAfter());
        continue;
      }
      // The time left is shared with the later targets that may take a call now.
      long share = (deadline - ticker.getAsLong()) / (1 + openLater(route, i));
      EngineResult result = call(target, request, Duration.ofNanos(Math.max(share, 1_000_000)));
      EngineResult.Failure failure;
      switch (result) {
        case EngineResult.Transcribed t -> {
          return t.servedBy(target.hop().engine(), target.hop().model());
        }
        case EngineResult.Failure f -> failure = f;
      }
      if (endsTheNote(failure, tried.first() == null)) {
        return failure;
      }
      tried.failed(target, failure);
      if (i + 1 < route.size()) {
        // The decision on the note's span; each attempt is a span of its own (TracedEngine).
        Span.current()
            .addEvent(
                "failover",
                Attributes.of(
                    TARGET, target.hop().label(), OUTCOME, TracedEngine.outcomeOf(failure)));
        log.info(
            "note {} fails over from {}: {}",
            request.requestId(),
            target.hop().label(),
            failure.message());
      }
    }
    return tried.answer();
  }

  /** Whether {@code failure} is the note's answer, with no other target tried. */
  private static boolean endsTheNote(EngineResult.Failure failure, boolean firstCall) {
    // The gateway's own trouble: every provider would meet it.
    if (!failure.countsAgainstProvider() && !failure.isNoteRefusal()) {
      return true;
    }
    // The note itself is refused: another provider would only be paid to refuse it too. A
    // fallback's refusal is not the note's answer: what failed first is (5xx, resend).
    if (failure.isNoteRefusal()) {
      return firstCall;
    }
    // The provider's trouble: the next target may serve the note.
    return false;
  }

  /** One call to one target, its outcome told to the target's breaker and the meters. */
  private EngineResult call(Target target, EngineRequest request, Duration timeout) {
    long started = ticker.getAsLong();
    EngineResult result;
    // The breaker as the attempt finds it, for the attempt's span.
    try (Scope attempt = TracedEngine.underBreaker(target.breaker().getState())) {
      result = target.call(request, timeout);
    }
    target.record(result, ticker.getAsLong() - started);
    if (result instanceof EngineResult.TimedOut) {
      meters.ambiguous(target);
    }
    meters.called(target, result);
    return result;
  }

  /** How many targets after {@code index} may take a call now (breaker not open). */
  private static int openLater(List<Target> route, int index) {
    int count = 0;
    for (Target later : route.subList(index + 1, route.size())) {
      CircuitBreaker.State state = later.breaker().getState();
      if (state != CircuitBreaker.State.OPEN && state != CircuitBreaker.State.FORCED_OPEN) {
        count++;
      }
    }
    return count;
  }

  private List<Target> route(String model) {
    List<Target> route = routes.get(model);
    return route != null ? route : routes.values().iterator().next();
  }

  /** Down when a route has no target that may take a call; degraded while a route has lost one. */
  @Override
  public Readiness readiness() {
    return built.readiness();
  }

  @Override
  public void bindMetrics(MeterRegistry registry) {
    meters.bind(registry, targets);
    built.engines().forEach(engine -> engine.bindMetrics(registry));
  }

  @Override
  public void close() {
    built.close();
  }
}
