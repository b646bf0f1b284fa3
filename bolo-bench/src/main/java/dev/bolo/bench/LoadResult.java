package dev.bolo.bench;

import java.util.Locale;

/**
 * What one run of the load counted, from wrk or {@link JavaLoad} alike: requests answered within
 * the run, their latency, and its errors; status errors are answers other than 2xx/3xx.
 *
 * @param serverCpuMillis the CPU time the target's server process spent during the run, in ms; -1
 *     when not measured
 */
record LoadResult(
    long requests,
    long durationMicros,
    long p50Micros,
    long p99Micros,
    long statusErrors,
    long timeouts,
    long socketErrors,
    long serverCpuMillis) {

  /** The same run with the CPU time its server process spent, in ms (-1: not measured). */
  LoadResult withServerCpuMillis(long millis) {
    return new LoadResult(
        requests,
        durationMicros,
        p50Micros,
        p99Micros,
        statusErrors,
        timeouts,
        socketErrors,
        millis);
  }

  /** Server CPU per answered request, in ms, or NaN when not measured. */
  double serverCpuPerRequest() {
    return serverCpuMillis < 0 || requests == 0 ? Double.NaN : (double) serverCpuMillis / requests;
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
