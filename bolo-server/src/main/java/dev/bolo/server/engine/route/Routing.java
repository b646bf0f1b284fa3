package dev.bolo.server.engine.route;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The engines and the routes over them: several ({@code BOLO_ENGINES}, {@code BOLO_ROUTES}), or the
 * one engine of {@code BOLO_ENGINE}, a route of one target for each model it offers.
 *
 * @param engines every engine, each named once
 * @param routes the routes in order; every target names one of the engines
 * @param alone whether this is the one engine of {@code BOLO_ENGINE}: it is then served as itself,
 *     under its own name, with no breaker or failover between a note and its provider
 */
public record Routing(List<EngineSpec> engines, List<Route> routes, boolean alone) {

  /** Several engines and the routes over them. */
  public static Routing of(List<EngineSpec> engines, List<Route> routes) {
    return new Routing(engines, routes, false);
  }

  /** The one engine {@code engine}, a route of one target for each of {@code models}. */
  public static Routing alone(EngineSpec engine, List<String> models) {
    List<Route> routes =
        models.stream()
            .distinct()
            .map(model -> new Route(model, List.of(new Route.Hop(engine.name(), model))))
            .toList();
    return new Routing(List.of(engine), routes, true);
  }

  public Routing {
    if (alone && engines.size() != 1) {
      throw new IllegalArgumentException("alone is one engine: " + engines);
    }
    engines = List.copyOf(engines);
    routes = List.copyOf(routes);
    Set<String> names = new HashSet<>();
    for (EngineSpec engine : engines) {
      if (!names.add(engine.name())) {
        throw new IllegalArgumentException("engine " + engine.name() + " is named twice");
      }
    }
    for (Route route : routes) {
      for (Route.Hop hop : route.targets()) {
        if (!names.contains(hop.engine())) {
          throw new IllegalArgumentException(
              "route "
                  + route.model()
                  + " names engine '"
                  + hop.engine()
                  + "', which BOLO_ENGINES does not list ("
                  + String.join(", ", names)
                  + ")");
        }
      }
    }
  }

  /** The models clients may ask for: the routes', in order. */
  public List<String> models() {
    return routes.stream().map(Route::model).toList();
  }
}
