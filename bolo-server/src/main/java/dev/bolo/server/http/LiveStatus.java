package dev.bolo.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bolo.server.health.Readiness;
import io.javalin.http.Context;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import java.time.Clock;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * {@code GET /admin/api/live}: what this instance is doing now, read from the meters {@code
 * /metrics} exports and the readiness {@code /readyz} reports, so the dashboard and a Prometheus
 * scrape never disagree. Thread safe.
 */
final class LiveStatus {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<String, Supplier<Readiness>> readiness;
  private final MeterRegistry metrics;
  private final Clock clock;

  LiveStatus(Map<String, Supplier<Readiness>> readiness, MeterRegistry metrics, Clock clock) {
    this.readiness = new TreeMap<>(readiness);
    this.metrics = metrics;
    this.clock = clock;
  }

  void answer(Context ctx) throws JsonProcessingException {
    ObjectNode body = JSON.createObjectNode();
    body.put("at", clock.instant().toString());
    body.put("requests_in_flight", gauge("bolo_transcription_requests_in_flight"));
    body.put("work_running", gauge("bolo_work_running"));
    body.put("dedup_waiting_copies", gauge("bolo_dedup_waiting_copies"));
    body.put("charges_pending", gauge("bolo_charges_pending"));
    // Only the offline engine has a pool of recognisers; the hosted engines have none.
    if (metrics.find("bolo_offline_pool_size").gauge() == null) {
      body.putNull("offline_pool");
    } else {
      ObjectNode pool = body.putObject("offline_pool");
      pool.put("busy", gauge("bolo_offline_pool_busy"));
      pool.put("queued", gauge("bolo_offline_pool_queued"));
      pool.put("size", gauge("bolo_offline_pool_size"));
    }
    upstream(body.putObject("upstream"));
    targets(body.putArray("targets"));
    ObjectNode components = body.putObject("readiness");
    for (var entry : readiness.entrySet()) {
      Readiness state;
      try {
        state = entry.getValue().get();
      } catch (RuntimeException e) {
        state = Readiness.down(e.toString());
      }
      ObjectNode component = components.putObject(entry.getKey());
      component.put("state", state.state().label());
      component.put("detail", state.detail());
    }
    ctx.contentType("application/json").result(JSON.writeValueAsBytes(body));
  }

  /**
   * With several engines, each target of the routes: its breaker, its calls in flight and waiting,
   * and its calls so far by outcome; empty with one engine.
   */
  private void targets(com.fasterxml.jackson.databind.node.ArrayNode node) {
    for (Gauge state : metrics.find("bolo_target_breaker_state").gauges()) {
      String target = state.getId().getTag("target");
      if (target == null) {
        continue;
      }
      ObjectNode row = node.addObject();
      row.put("target", target);
      row.put(
          "breaker",
          switch ((int) state.value()) {
            case 1 -> "open";
            case 2 -> "half_open";
            default -> "closed";
          });
      row.put("in_flight", targetGauge("bolo_target_in_flight", target));
      row.put("queued", targetGauge("bolo_target_queued", target));
      ObjectNode calls = row.putObject("calls");
      for (Counter counter :
          metrics.find("bolo_target_calls_total").tag("target", target).counters()) {
        calls.put(
            java.util.Objects.requireNonNullElse(counter.getId().getTag("outcome"), "?"),
            (long) counter.count());
      }
    }
  }

  private long targetGauge(String name, String target) {
    Gauge gauge = metrics.find(name).tag("target", target).gauge();
    return gauge == null ? 0 : (long) gauge.value();
  }

  /**
   * Engine latency since this instance started, every engine and result together: a timeout is
   * latency too. The percentiles are estimated from the histogram's buckets.
   */
  private void upstream(ObjectNode node) {
    LatencyHistogram histogram = new LatencyHistogram();
    for (Timer timer : metrics.find("bolo_upstream_seconds").timers()) {
      HistogramSnapshot snapshot = timer.takeSnapshot();
      for (CountAtBucket bucket : snapshot.histogramCounts()) {
        histogram.add(bucket.bucket(TimeUnit.SECONDS), (long) bucket.count());
      }
      histogram.addTotal(snapshot.count(), snapshot.max(TimeUnit.SECONDS));
    }
    node.put("calls", histogram.total());
    putSeconds(node, "p50_seconds", histogram.quantile(0.50));
    putSeconds(node, "p99_seconds", histogram.quantile(0.99));
  }

  private static void putSeconds(ObjectNode node, String field, OptionalDouble seconds) {
    if (seconds.isEmpty()) {
      node.putNull(field);
    } else {
      node.put(field, Math.round(seconds.getAsDouble() * 1000) / 1000.0);
    }
  }

  private long gauge(String name) {
    Gauge gauge = metrics.find(name).gauge();
    return gauge == null ? 0 : Math.round(gauge.value());
  }
}
