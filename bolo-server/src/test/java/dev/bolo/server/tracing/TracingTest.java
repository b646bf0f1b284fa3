package dev.bolo.server.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bolo.server.config.ServerConfig;
import io.opentelemetry.api.trace.Span;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** Traces are off unless the standard variables name somewhere to send them. */
class TracingTest {

  private static final String ENDPOINT = "http://127.0.0.1:4318";

  @Test
  void offWithoutVariablesBuildsNoSdkAndMakesNoSpans() {
    try (Tracing tracing = Tracing.configure(Map.of(), new Properties())) {
      assertThat(tracing.isOn()).isFalse();
      Span span = tracing.tracer().spanBuilder("note").startSpan();
      assertThat(span.getSpanContext().isValid()).isFalse();
      span.end();
    }
  }

  @Test
  void anEndpointTurnsTracesOnAndTheSdkMakesRealSpans() {
    try (Tracing tracing =
        Tracing.configure(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", ENDPOINT), new Properties())) {
      assertThat(tracing.isOn()).isTrue();
      // Not ended: an ended span would be sent, to a collector that is not there.
      Span span = tracing.tracer().spanBuilder("note").startSpan();
      assertThat(span.getSpanContext().isValid()).isTrue();
    }
  }

  @Test
  void aTracesEndpointOrANamedExporterTurnsThemOnToo() {
    assertThat(on(Map.of("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", ENDPOINT + "/v1/traces"))).isTrue();
    assertThat(on(Map.of("OTEL_TRACES_EXPORTER", "otlp"))).isTrue();
  }

  @Test
  void noneAsTheExporterOrADisabledSdkKeepsThemOffWhateverElseIsSet() {
    assertThat(on(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", ENDPOINT, "OTEL_TRACES_EXPORTER", "none")))
        .isFalse();
    assertThat(on(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", ENDPOINT, "OTEL_SDK_DISABLED", "true")))
        .isFalse();
    assertThat(on(Map.of("OTEL_SERVICE_NAME", "gateway-eu", "OTEL_TRACES_SAMPLER", "always_on")))
        .isFalse();
  }

  @Test
  void aSystemPropertyWinsOverTheVariable() {
    Properties system = new Properties();
    system.setProperty("otel.sdk.disabled", "true");
    assertThat(
            Tracing.isOn(
                Tracing.properties(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", ENDPOINT), system)))
        .isFalse();
  }

  @Test
  void aValueTheSdkRefusesStopsTheStartNamingTheVariables() {
    assertThatThrownBy(
            () ->
                Tracing.configure(
                    Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", ENDPOINT, "OTEL_TRACES_SAMPLER", "often"),
                    new Properties()))
        .isInstanceOf(Tracing.RefusedConfiguration.class)
        .hasMessageStartingWith("OTEL_*: ");
  }

  @Test
  void theGatewaysVariablesReachItsConfigurationUnderTheirOwnNames() {
    ServerConfig config =
        ServerConfig.fromMap(
            Map.of(
                "OTEL_EXPORTER_OTLP_ENDPOINT",
                ENDPOINT,
                "OTEL_SERVICE_NAME",
                "gateway-eu",
                "BOLO_PORT",
                "0"));
    assertThat(config.telemetry())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", ENDPOINT, "OTEL_SERVICE_NAME", "gateway-eu"));
  }

  /** The decision alone: building an SDK for each case would only slow the test. */
  private static boolean on(Map<String, String> variables) {
    return Tracing.isOn(Tracing.properties(variables, new Properties()));
  }
}
