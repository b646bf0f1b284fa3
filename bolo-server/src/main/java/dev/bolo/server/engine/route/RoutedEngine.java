package dev.bolo.server.engine.route;

import dev.bolo.server.engine.EngineLimits;
import dev.bolo.server.engine.EngineRequest;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.ResponseFormat;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.engine.SpeechEngine;
import dev.bolo.server.engine.Task;
import dev.bolo.server.health.Readiness;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
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

  /** How long a note waits for a full target's calls in flight before trying the next target. */
  static final Duration WAIT_BEFORE_NEXT = Duration.ofMillis(250);

  private final Map<String, List<Target>> routes;
  private final List<Target> targets;
  private final List<SpeechEngine> engines;
  private final List<CallsPerMinute> limits;
  private final RouteMeters meters = new RouteMeters();
  private final LongSupplier ticker;

  /**
   * @param routes the route models in order (the first serves notes that name no model), each to
   *     its targets in order
   * @param engines every engine the targets call, closed with this one
   */
  RoutedEngine(
      Map<String, List<Target>> routes,
      List<SpeechEngine> engines,
      List<CallsPerMinute> limits,
      LongSupplier ticker) {
    if (routes.isEmpty()) {
      throw new IllegalArgumentException("no route");
    }
    this.routes = new LinkedHashMap<>(routes);
    List<Target> all = new ArrayList<>();
    routes.values().forEach(list -> list.stream().filter(t -> !all.contains(t)).forEach(all::add));
    this.targets = List.copyOf(all);
    this.engines = List.copyOf(engines);
    this.limits = List.copyOf(limits);
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
      java.util.function.BiFunction<String, Integer, CallsPerMinute> perMinuteOf,
      LongSupplier ticker) {
    TickerClock breakerClock = new TickerClock(ticker);
    Map<String, EngineSpec> specs = new LinkedHashMap<>();
    routing.engines().forEach(spec -> specs.put(spec.name(), spec));
    Map<String, SpeechEngine> engines = new LinkedHashMap<>();
    Map<String, Target> targets = new LinkedHashMap<>();
    // An engine's limits hold over all its targets: one account, whatever model is asked.
    Map<String, java.util.concurrent.Semaphore> inFlight = new LinkedHashMap<>();
    Map<String, CallsPerMinute> perMinute = new LinkedHashMap<>();
    for (EngineSpec spec : routing.engines()) {
      spec.maxConcurrent()
          .ifPresent(
              max -> inFlight.put(spec.name(), new java.util.concurrent.Semaphore(max, true)));
      spec.maxPerMinute()
          .ifPresent(max -> perMinute.put(spec.name(), perMinuteOf.apply(spec.name(), max)));
    }
    Map<String, List<Target>> routes = new LinkedHashMap<>();
    try {
      for (Route route : routing.routes()) {
        List<Target> hops = new ArrayList<>();
        for (Route.Hop hop : route.targets()) {
          // Routing checked that every target names one of its engines.
          EngineSpec spec = java.util.Objects.requireNonNull(specs.get(hop.engine()));
          SpeechEngine engine = engines.computeIfAbsent(hop.engine(), name -> engineOf.apply(spec));
          hops.add(
              targets.computeIfAbsent(
                  hop.label(),
                  label ->
                      new Target(
                          hop,
                          engine,
                          spec.maxConcurrent(),
                          inFlight.get(spec.name()),
                          perMinute.get(spec.name()),
                          breakerClock)));
        }
        routes.put(route.model(), hops);
      }
    } catch (RuntimeException e) {
      engines.values().forEach(SpeechEngine::close);
      throw e;
    }
    return new RoutedEngine(
        routes, List.copyOf(engines.values()), List.copyOf(perMinute.values()), ticker);
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
    long bytes = Long.MAX_VALUE;
    long seconds = Long.MAX_VALUE;
    for (Target target : route(model)) {
      EngineLimits limits = target.engine().limits(target.hop().model());
      bytes = Math.min(bytes, limits.maxRequestBytes());
      seconds = Math.min(seconds, limits.maxSeconds());
    }
    return new EngineLimits(bytes, seconds);
  }

  @Override
  public boolean canTranslate() {
    return targets.stream().anyMatch(t -> t.engine().canTranslate());
  }

  @Override
  public EngineResult transcribe(EngineRequest request) {
    Settings settings = request.settings();
    List<Target> route = route(settings.model());
    if (settings.task() == Task.TRANSLATE
        && route.stream().noneMatch(t -> t.engine().canTranslate())) {
      // A resend would meet the same targets: refused, not "come back later".
      return new EngineResult.Rejected(
          "no engine of model " + settings.model() + " translates; ask another model");
    }
    long deadline = ticker.getAsLong() + request.timeout().toNanos();
    EngineResult.@Nullable Failure failed = null;
    boolean called = false;
    @Nullable Duration shortestWait = null;
    List<String> passedOver = new ArrayList<>();
    for (int i = 0; i < route.size(); i++) {
      Target target = route.get(i);
      if (settings.task() == Task.TRANSLATE && !target.engine().canTranslate()) {
        continue;
      }
      long left = deadline - ticker.getAsLong();
      if (left <= TimeUnit.SECONDS.toNanos(1)) {
        break;
      }
      boolean last = i == route.size() - 1;
      Target.Admission admission;
      try {
        admission = target.admit(last ? Duration.ofNanos(left / 2) : WAIT_BEFORE_NEXT);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return new EngineResult.Unavailable("interrupted while waiting for a provider", null);
      }
      if (admission instanceof Target.Admission.Refused refused) {
        meters.skipped(target);
        passedOver.add(target.hop().label() + " (" + refused.why() + ")");
        shortestWait =
            shortestWait == null || refused.retryAfter().compareTo(shortestWait) < 0
                ? refused.retryAfter()
                : shortestWait;
        continue;
      }
      // The time left is shared with the later targets that may take a call now.
      long share = (deadline - ticker.getAsLong()) / (1 + openLater(route, i, settings.task()));
      EngineResult result = call(target, request, Duration.ofNanos(Math.max(share, 1_000_000)));
      boolean first = !called;
      called = true;
      EngineResult.Failure failure;
      switch (result) {
        case EngineResult.Transcribed t -> {
          return t.servedBy(target.hop().engine(), target.hop().model());
        }
        case EngineResult.Saturated r -> {
          return r;
        }
        case EngineResult.Rejected r -> failure = r;
        case EngineResult.InvalidAudio r -> failure = r;
        case EngineResult.UnsupportedAudio r -> failure = r;
        case EngineResult.Unavailable u -> failure = u;
        case EngineResult.Failed f -> failure = f;
        case EngineResult.TimedOut t -> failure = t;
      }
      boolean refusal =
          failure instanceof EngineResult.Rejected
              || failure instanceof EngineResult.InvalidAudio
              || failure instanceof EngineResult.UnsupportedAudio;
      if (refusal && first) {
        // The note itself is refused: another provider would only be paid to refuse it too.
        return failure;
      }
      // A fallback's refusal is not the note's answer: what failed first is (5xx, resend).
      failed = failed == null ? failure : failed;
      passedOver.add(target.hop().label() + " (" + failure.message() + ")");
      if (i + 1 < route.size()) {
        log.info(
            "note {} fails over from {}: {}",
            request.requestId(),
            target.hop().label(),
            failure.message());
      }
    }
    if (failed != null) {
      return failed;
    }
    return new EngineResult.Saturated(
        "no provider can take the note now: " + String.join(", ", passedOver),
        shortestWait == null ? Duration.ofSeconds(1) : shortestWait);
  }

  /** One call to one target, its outcome told to the target's breaker and the meters. */
  private EngineResult call(Target target, EngineRequest request, Duration timeout) {
    long started = ticker.getAsLong();
    EngineResult result;
    try {
      result = callEngine(target, request, timeout);
    } catch (RuntimeException bug) {
      // An engine's bug fails this call, not the route: the breaker counts it, the next target
      // is tried, the permits are given back.
      log.error("engine {} failed unexpectedly", target.hop().label(), bug);
      result = new EngineResult.Failed("the " + target.hop().engine() + " engine failed");
    } finally {
      target.release();
    }
    record(target, result, ticker.getAsLong() - started);
    return result;
  }

  private EngineResult callEngine(Target target, EngineRequest request, Duration timeout) {
    Settings asked = request.settings();
    Settings settings =
        new Settings(
            target.engine().name(),
            target.hop().model(),
            asked.language(),
            asked.prompt(),
            asked.temperature(),
            asked.responseFormat(),
            asked.timestampGranularities(),
            asked.task());
    return target
        .engine()
        .transcribe(
            new EngineRequest(
                request.audio(),
                settings,
                timeout,
                request.requestId(),
                request.deltas(),
                request.progress()));
  }

  /** Tells the target's breaker and the meters how a call ended. */
  private void record(Target target, EngineResult result, long took) {
    CircuitBreaker breaker = target.breaker();
    switch (result) {
      case EngineResult.Unavailable u when u.retryAfter() != null -> {
        breaker.onError(took, TimeUnit.NANOSECONDS, new Target.TargetFailure(u.message()));
        target.openFor(u.retryAfter());
      }
      case EngineResult.Unavailable u ->
          breaker.onError(took, TimeUnit.NANOSECONDS, new Target.TargetFailure(u.message()));
      case EngineResult.Failed f ->
          breaker.onError(took, TimeUnit.NANOSECONDS, new Target.TargetFailure(f.message()));
      case EngineResult.TimedOut t -> {
        breaker.onError(took, TimeUnit.NANOSECONDS, new Target.TargetFailure(t.message()));
        meters.ambiguous(target);
      }
      case EngineResult.Transcribed t -> breaker.onSuccess(took, TimeUnit.NANOSECONDS);
      case EngineResult.Rejected r -> breaker.onSuccess(took, TimeUnit.NANOSECONDS);
      case EngineResult.InvalidAudio r -> breaker.onSuccess(took, TimeUnit.NANOSECONDS);
      case EngineResult.UnsupportedAudio r -> breaker.onSuccess(took, TimeUnit.NANOSECONDS);
      case EngineResult.Saturated r -> breaker.releasePermission();
    }
    meters.called(target, result);
  }

  /** How many targets after {@code index} may take a call now (breaker not open). */
  private static int openLater(List<Target> route, int index, Task task) {
    int count = 0;
    for (Target later : route.subList(index + 1, route.size())) {
      CircuitBreaker.State state = later.breaker().getState();
      if ((task != Task.TRANSLATE || later.engine().canTranslate())
          && state != CircuitBreaker.State.OPEN
          && state != CircuitBreaker.State.FORCED_OPEN) {
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
    List<String> lost = new ArrayList<>();
    for (Map.Entry<String, List<Target>> route : routes.entrySet()) {
      List<Target> open =
          route.getValue().stream()
              .filter(t -> t.breaker().getState() == CircuitBreaker.State.OPEN)
              .toList();
      if (open.size() == route.getValue().size()) {
        return Readiness.down("every provider of route " + route.getKey() + " is failing");
      }
      open.forEach(t -> lost.add(route.getKey() + " → " + t.hop().label()));
    }
    for (SpeechEngine engine : engines) {
      Readiness readiness = engine.readiness();
      if (!readiness.isReady()) {
        // One engine of several (an offline fallback still loading) does not stop the others.
        lost.add(engine.name() + ": " + readiness.detail());
      }
    }
    return lost.isEmpty()
        ? Readiness.ok()
        : Readiness.degraded("failing over: " + String.join(", ", lost));
  }

  @Override
  public void bindMetrics(MeterRegistry registry) {
    meters.bind(registry, targets);
    engines.forEach(engine -> engine.bindMetrics(registry));
  }

  @Override
  public void close() {
    limits.forEach(CallsPerMinute::close);
    for (SpeechEngine engine : engines) {
      try {
        engine.close();
      } catch (Exception e) {
        log.warn("closing engine {}: {}", engine.name(), e.toString());
      }
    }
  }
}
