package dev.bolo.server.engine.route;

import dev.bolo.server.engine.SpeechEngine;
import dev.bolo.server.health.Readiness;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Semaphore;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The targets of a {@link Routing}, each engine made once: every route's targets in order, each
 * guarded by its own breaker and its engine's limits (shared by the engine's targets: one account,
 * whatever model is asked).
 *
 * @param routes each route model, in order, to its targets in order
 * @param engines every engine the targets call, closed with the route
 * @param perMinute every engine's calls per minute, closed likewise
 */
record RouteTargets(
    Map<String, List<Target>> routes, List<SpeechEngine> engines, List<CallsPerMinute> perMinute)
    implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RouteTargets.class);

  RouteTargets {
    routes = new LinkedHashMap<>(routes);
    engines = List.copyOf(engines);
    perMinute = List.copyOf(perMinute);
  }

  /** Makes every engine of {@code routing} with {@code engineOf}; closes them if one fails. */
  static RouteTargets of(
      Routing routing,
      Function<EngineSpec, SpeechEngine> engineOf,
      BiFunction<String, Integer, CallsPerMinute> perMinuteOf,
      Clock breakerClock) {
    Map<String, EngineSpec> specs = new LinkedHashMap<>();
    Map<String, Semaphore> inFlight = new LinkedHashMap<>();
    Map<String, CallsPerMinute> perMinute = new LinkedHashMap<>();
    for (EngineSpec spec : routing.engines()) {
      specs.put(spec.name(), spec);
      spec.maxConcurrent().ifPresent(max -> inFlight.put(spec.name(), new Semaphore(max, true)));
      spec.maxPerMinute()
          .ifPresent(max -> perMinute.put(spec.name(), perMinuteOf.apply(spec.name(), max)));
    }
    Map<String, SpeechEngine> engines = new LinkedHashMap<>();
    Map<String, Target> targets = new LinkedHashMap<>();
    Map<String, List<Target>> routes = new LinkedHashMap<>();
    try {
      for (Route route : routing.routes()) {
        List<Target> hops = new ArrayList<>();
        for (Route.Hop hop : route.targets()) {
          // Routing checked that every target names one of its engines.
          EngineSpec spec = Objects.requireNonNull(specs.get(hop.engine()));
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
      perMinute.values().forEach(CallsPerMinute::close);
      throw e;
    }
    return new RouteTargets(routes, List.copyOf(engines.values()), List.copyOf(perMinute.values()));
  }

  /** Down when a route has no target that may take a call; degraded while a route has lost one. */
  Readiness readiness() {
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

  /** Closes every engine and calls-per-minute limit; a failure to close one is only logged. */
  @Override
  public void close() {
    perMinute.forEach(CallsPerMinute::close);
    for (SpeechEngine engine : engines) {
      try {
        engine.close();
      } catch (Exception e) {
        log.warn("closing engine {}: {}", engine.name(), e.toString());
      }
    }
  }

  /** Every target once, in the order the routes first name them. */
  List<Target> all() {
    List<Target> all = new ArrayList<>();
    routes.values().forEach(list -> list.stream().filter(t -> !all.contains(t)).forEach(all::add));
    return List.copyOf(all);
  }
}
