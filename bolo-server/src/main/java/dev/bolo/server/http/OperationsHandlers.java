package dev.bolo.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bolo.server.health.Readiness;
import io.javalin.http.Context;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@code /healthz}, {@code /readyz} and {@code /metrics}. */
final class OperationsHandlers {

  private static final Logger log = LoggerFactory.getLogger(OperationsHandlers.class);
  private static final ObjectMapper JSON = HttpJson.MAPPER;

  /** The OpenMetrics media type (OpenMetrics 1.0), in which histograms carry exemplars. */
  private static final String OPEN_METRICS = "application/openmetrics-text";

  private static final String OPEN_METRICS_TYPE = OPEN_METRICS + "; version=1.0.0; charset=utf-8";

  private final Map<String, Supplier<Readiness>> components;
  private final PrometheusMeterRegistry registry;

  /**
   * @param components readiness of each named component, e.g. engine, store, ledger
   */
  OperationsHandlers(
      Map<String, Supplier<Readiness>> components, PrometheusMeterRegistry registry) {
    this.components = Map.copyOf(components);
    this.registry = registry;
  }

  void health(Context ctx) {
    ctx.contentType("application/json").result("{\"status\":\"ok\"}");
  }

  /**
   * 200 while every component serves (READY or DEGRADED), 503 once one is DOWN; each component by
   * its state alone ({@code ready}, {@code degraded}, {@code down}). Anyone may ask, so the body
   * never holds a detail: a detail may name the database's or Redis's host and user, or carry a
   * library's own words. Those are logged when a state changes, and the operator's API ({@code
   * /admin/api/live}) shows them. Reads kept state only, so it answers at once whatever a
   * dependency does.
   */
  void ready(Context ctx) throws Exception {
    ObjectNode body = JSON.createObjectNode();
    ObjectNode states = body.putObject("components");
    Readiness.State worst = Readiness.State.READY;
    for (var entry : new java.util.TreeMap<>(components).entrySet()) {
      Readiness.State state;
      try {
        state = entry.getValue().get().state();
      } catch (RuntimeException e) {
        log.warn("cannot tell whether {} is ready", entry.getKey(), e);
        state = Readiness.State.DOWN;
      }
      if (state.compareTo(worst) > 0) {
        worst = state;
      }
      states.put(entry.getKey(), state.label());
    }
    body.put(
        "status",
        switch (worst) {
          case READY -> "ready";
          case DEGRADED -> "degraded";
          case DOWN -> "not ready";
        });
    ctx.status(worst == Readiness.State.DOWN ? 503 : 200)
        .contentType("application/json")
        .result(JSON.writeValueAsBytes(body));
  }

  void metrics(Context ctx) throws InterruptedException {
    // A scraper that asks for OpenMetrics (Prometheus does) gets it, exemplars included.
    String accept = ctx.header("Accept");
    boolean openMetrics = accept != null && accept.contains(OPEN_METRICS);
    String text =
        openMetrics
            ? MetricsScrapes.scrape(registry, OPEN_METRICS_TYPE)
            : MetricsScrapes.scrape(registry);
    if (text == null) {
      ErrorWriter.write(
          ctx,
          Dialect.NATIVE,
          Errors.serverUnavailable(
              "metrics are being scraped too often; retry at the next interval",
              Duration.ofSeconds(1)));
      return;
    }
    ctx.contentType(openMetrics ? OPEN_METRICS_TYPE : "text/plain; version=0.0.4; charset=utf-8")
        .result(text);
  }
}
