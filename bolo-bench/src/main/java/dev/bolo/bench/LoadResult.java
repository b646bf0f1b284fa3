package dev.bolo.bench;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What one run of the load counted, from wrk or {@link JavaLoad} alike: requests answered within
 * the run, their latency, and its errors; status errors are answers other than 2xx/3xx.
 *
 * @param cpuMillis the CPU time each measured process spent during the run, in ms, by role: {@value
 *     #SERVER} (the target's own server: the stand-in, nginx's master and workers, or the gateway),
 *     {@value #STAND_IN} (the provider stand-in behind a proxy or gateway) and {@value #GENERATOR}
 *     (the load generator's process); a role not measured is absent
 */
record LoadResult(
    long requests,
    long durationMicros,
    long p50Micros,
    long p99Micros,
    long statusErrors,
    long timeouts,
    long socketErrors,
    Map<String, Long> cpuMillis) {

  static final String SERVER = "server";
  static final String STAND_IN = "stand-in";
  static final String GENERATOR = "load generator";

  LoadResult {
    cpuMillis = Map.copyOf(cpuMillis);
  }

  /** The same run with the CPU time one process spent, in ms. */
  LoadResult withCpuMillis(String role, long millis) {
    Map<String, Long> cpu = new LinkedHashMap<>(cpuMillis);
    cpu.put(role, millis);
    return new LoadResult(
        requests, durationMicros, p50Micros, p99Micros, statusErrors, timeouts, socketErrors, cpu);
  }

  /** The same run with the CPU time its server process spent, in ms. */
  LoadResult withServerCpuMillis(long millis) {
    return withCpuMillis(SERVER, millis);
  }

  /** One process's CPU per answered request, in ms, or NaN when not measured. */
  double cpuPerRequest(String role) {
    Long millis = cpuMillis.get(role);
    return millis == null || requests == 0 ? Double.NaN : (double) millis / requests;
  }

  /** Server CPU per answered request, in ms, or NaN when not measured. */
  double serverCpuPerRequest() {
    return cpuPerRequest(SERVER);
  }

  long errors() {
    return statusErrors + timeouts + socketErrors;
  }

  double okPerSecond() {
    return Math.max(0, requests - statusErrors) / (durationMicros / 1e6);
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "%.0f ok req/s, p50 %.1f ms, p99 %.1f ms, %d non-2xx, %d timeouts, %d socket errors",
        okPerSecond(),
        p50Micros / 1000.0,
        p99Micros / 1000.0,
        statusErrors,
        timeouts,
        socketErrors);
  }
}
