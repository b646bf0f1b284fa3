package dev.bolo.server.engine.route;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Several engines and the routes over them ({@code BOLO_ENGINES}, {@code BOLO_ROUTES}).
 *
 * @param engines every engine, each named once
 * @param routes the routes in order; every target names one of the engines
 */
public record Routing(List<EngineSpec> engines, List<Route> routes) {

  public Routing {
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
