package dev.bolo.server.tracing;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's traces: the OpenTelemetry SDK built by its own autoconfigure from the standard
 * {@code OTEL_*} variables (and {@code otel.*} system properties, which win, as the SDK has it), or
 * nothing at all. Off, the gateway holds {@link OpenTelemetry#noop()}: no SDK, no exporter, no
 * thread, and the request path installs no span wrapper. On only when the variables name somewhere
 * to send spans: {@code OTEL_EXPORTER_OTLP_ENDPOINT} or {@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT},
 * or an {@code OTEL_TRACES_EXPORTER} other than {@code none}; {@code OTEL_SDK_DISABLED=true} is
 * always off. Traces only: metrics stay on {@code /metrics} and logs on stderr, so the SDK's metric
 * and log exporters are always {@code none}. Thread safe.
 */
public final class Tracing implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Tracing.class);

  /** The instrumentation scope of every span the gateway makes. */
  static final String SCOPE = "dev.bolo.server";

  /** How long a stop waits for the last spans to reach the collector. */
  private static final long FLUSH_SECONDS = 5;

  private final OpenTelemetry openTelemetry;
  private final @Nullable OpenTelemetrySdk sdk;

  private Tracing(OpenTelemetry openTelemetry, @Nullable OpenTelemetrySdk sdk) {
    this.openTelemetry = openTelemetry;
    this.sdk = sdk;
  }

  /**
   * A value of the {@code OTEL_*} variables that the SDK refused: a configuration error, which
   * stops the start with its one line as the gateway's own do.
   */
  public static final class RefusedConfiguration extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RefusedConfiguration(String message) {
      super(message);
    }
  }

  /** No traces: the no-op API, nothing built. */
  public static Tracing off() {
    return new Tracing(OpenTelemetry.noop(), null);
  }

  /**
   * Traces as {@code variables} (the gateway's {@code OTEL_*} variables) and this process's {@code
   * otel.*} system properties configure them, or {@link #off()} when they name nowhere to send
   * spans.
   *
   * @throws RefusedConfiguration when the SDK refuses a value
   */
  public static Tracing configure(Map<String, String> variables) {
    return configure(variables, System.getProperties());
  }

  static Tracing configure(Map<String, String> variables, Properties system) {
    Map<String, String> properties = properties(variables, system);
    if (!isOn(properties)) {
      return off();
    }
    OpenTelemetrySdk sdk;
    try {
      sdk =
          AutoConfiguredOpenTelemetrySdk.builder()
              // The gateway's name unless the operator gives another, and OTLP over HTTP, the
              // protocol the specification makes the default (the SDK's own default is gRPC).
              .addPropertiesSupplier(
                  () ->
                      Map.of(
                          "otel.service.name", "bolo",
                          "otel.exporter.otlp.protocol", "http/protobuf"))
              .addPropertiesCustomizer(
                  config -> {
                    Map<String, String> own = new HashMap<>(properties);
                    // Metrics are served on /metrics and logs written to stderr, whatever is set.
                    own.put("otel.metrics.exporter", "none");
                    own.put("otel.logs.exporter", "none");
                    return own;
                  })
              // The gateway's own stop flushes the last spans (close()), after its work ended.
              .disableShutdownHook()
              .build()
              .getOpenTelemetrySdk();
    } catch (RuntimeException e) {
      throw new RefusedConfiguration(
          "OTEL_*: the OpenTelemetry SDK refused its configuration: " + e.getMessage());
    }
    log.info(
        "traces on: sent to {}",
        properties.getOrDefault(
            "otel.exporter.otlp.traces.endpoint",
            properties.getOrDefault(
                "otel.exporter.otlp.endpoint",
                properties.getOrDefault("otel.traces.exporter", "otlp"))));
    return new Tracing(sdk, sdk);
  }

  /**
   * The variables under the SDK's own property names ({@code OTEL_EXPORTER_OTLP_ENDPOINT} is {@code
   * otel.exporter.otlp.endpoint}, as its autoconfigure reads the environment), the system
   * properties over them.
   */
  static Map<String, String> properties(Map<String, String> variables, Properties system) {
    Map<String, String> properties = new HashMap<>();
    variables.forEach(
        (name, value) -> {
          if (name.startsWith("OTEL_") && !value.isBlank()) {
            properties.put(name.toLowerCase(Locale.ROOT).replace('_', '.'), value.trim());
          }
        });
    system.stringPropertyNames().stream()
        .filter(name -> name.startsWith("otel."))
        .forEach(name -> properties.put(name, system.getProperty(name).trim()));
    return properties;
  }

  /** Whether {@code properties} name somewhere to send spans and do not disable the SDK. */
  static boolean isOn(Map<String, String> properties) {
    // The specification's switch for the whole SDK wins over everything else.
    if ("true".equalsIgnoreCase(properties.get("otel.sdk.disabled"))) {
      return false;
    }
    @Nullable String exporters = properties.get("otel.traces.exporter");
    if (exporters != null) {
      // An exporter named outright: on unless it is none.
      return !exporters.trim().equalsIgnoreCase("none");
    }
    // The SDK's default exporter is OTLP, but to a collector on localhost that may not be there:
    // the gateway sends nothing until an address is given.
    return properties.containsKey("otel.exporter.otlp.endpoint")
        || properties.containsKey("otel.exporter.otlp.traces.endpoint");
  }

  /**
   * The gateway's metrics registry: with traces on, its latency histograms (its timers) keep
   * exemplars naming the trace current when a value was recorded, shown in the OpenMetrics format
   * ({@link ExemplarTimers}).
   */
  public PrometheusMeterRegistry metricsRegistry() {
    return isOn() ? new ExemplarTimers() : new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  }

  /** Whether spans are made and sent. */
  public boolean isOn() {
    return sdk != null;
  }

  /** The tracer of the gateway's spans; the no-op tracer when off. */
  public Tracer tracer() {
    return openTelemetry.getTracer(SCOPE);
  }

  /** How a trace's context travels in HTTP headers (W3C trace context and baggage by default). */
  public TextMapPropagator propagator() {
    return openTelemetry.getPropagators().getTextMapPropagator();
  }

  /** Sends the spans still held, then stops the SDK; nothing when off. */
  @Override
  public void close() {
    if (sdk == null) {
      return;
    }
    CompletableResultCode done = sdk.shutdown().join(FLUSH_SECONDS, TimeUnit.SECONDS);
    if (!done.isSuccess()) {
      log.warn("traces: the last spans were not all sent within {} s", FLUSH_SECONDS);
    }
  }
}
