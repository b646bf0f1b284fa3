package dev.bolo.server.engine.route;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A model a client may ask for, and the targets that serve it, in the order they are tried.
 *
 * @param model the name a client asks for; the route, not a target, is part of the work key
 * @param targets {@code engine/model} pairs, first tried first
 */
public record Route(String model, List<Hop> targets) {

  /**
   * One target of a route.
   *
   * @param engine the name of an engine in {@code BOLO_ENGINES}
   * @param model the model, or for Azure the deployment, that engine is asked for
   */
  public record Hop(String engine, String model) {
    public Hop {
      Objects.requireNonNull(engine, "engine");
      Objects.requireNonNull(model, "model");
    }

    /** {@code engine/model}, as the route names it and metrics label it. */
    public String label() {
      return engine + "/" + model;
    }
  }

  public Route {
    Objects.requireNonNull(model, "model");
    targets = List.copyOf(targets);
    if (targets.isEmpty()) {
      throw new IllegalArgumentException("a route needs a target: " + model);
    }
  }

  /**
   * Parses {@code BOLO_ROUTES}: {@code model=engine/model,engine/model;model=engine/model}, in
   * order; the first route serves requests that name no model.
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  public static List<Route> parse(String text) {
    Map<String, Route> routes = new LinkedHashMap<>();
    for (String entry : text.split(";")) {
      if (entry.isBlank()) {
        continue;
      }
      int equals = entry.indexOf('=');
      if (equals <= 0) {
        throw new IllegalArgumentException(
            "each route is model=engine/model,...; not '" + entry.trim() + "'");
      }
      String model = entry.substring(0, equals).trim();
      if (model.isEmpty()) {
        throw new IllegalArgumentException("a route needs a model: '" + entry.trim() + "'");
      }
      List<Hop> hops = new ArrayList<>();
      for (String target : entry.substring(equals + 1).split(",")) {
        String trimmed = target.trim();
        int slash = trimmed.indexOf('/');
        String engine = slash < 0 ? "" : trimmed.substring(0, slash).trim();
        String hopModel = slash < 0 ? "" : trimmed.substring(slash + 1).trim();
        if (engine.isEmpty() || hopModel.isEmpty()) {
          throw new IllegalArgumentException(
              "route " + model + ": a target is engine/model, not '" + trimmed + "'");
        }
        hops.add(new Hop(engine.toLowerCase(java.util.Locale.ROOT), hopModel));
      }
      if (routes.putIfAbsent(model, new Route(model, hops)) != null) {
        throw new IllegalArgumentException("route " + model + " is given twice");
      }
    }
    if (routes.isEmpty()) {
      throw new IllegalArgumentException("no route given");
    }
    return List.copyOf(routes.values());
  }
}
