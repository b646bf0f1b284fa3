package dev.bolo.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The gateways {@link TracingOverhead} starts beside its untraced one, with their variables. */
final class TracingVariants {

  private TracingVariants() {}

  /**
   * The variables of each variant: where the traced gateways send, and how they sample; with {@code
   * baselineTraced}, the baseline's gateway is traced as {@code traced} is. With {@code replicas}
   * above 1, only traces off and each of {@code groups}, each in that many processes ({@code
   * gateway} and {@code off-2}…, {@code traced} and {@code traced-2}…): {@code traced} samples
   * every note, {@code tenth} a tenth of their notes ({@code tenth-2}…), {@code unsampled} none,
   * and {@code control} is untraced as well, which measures what the pooling itself makes of two
   * groups alike.
   */
  static Map<String, Map<String, String>> of(
      String endpoint, boolean baselineTraced, int replicas, List<String> groups) {
    Map<String, Map<String, String>> variants = new LinkedHashMap<>();
    if (replicas > 1) {
      for (String replicated : groups) {
        replicated(variants, endpoint, replicas, replicated);
      }
      for (int i = 2; i <= replicas; i++) {
        variants.put("off-" + i, Map.of());
      }
      return variants;
    }
    if (baselineTraced) {
      variants.put(
          "baseline",
          Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint, "OTEL_SERVICE_NAME", "baseline"));
    }
    variants.put(
        "traced", Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint, "OTEL_SERVICE_NAME", "traced"));
    variants.put(
        "tenth",
        Map.of(
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            endpoint,
            "OTEL_SERVICE_NAME",
            "tenth",
            "OTEL_TRACES_SAMPLER",
            "parentbased_traceidratio",
            "OTEL_TRACES_SAMPLER_ARG",
            "0.1"));
    variants.put(
        "unsampled",
        Map.of(
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            endpoint,
            "OTEL_SERVICE_NAME",
            "unsampled",
            "OTEL_TRACES_SAMPLER",
            "always_off"));
    return variants;
  }

  /** {@code replicated}'s {@code replicas} processes, {@code replicated}, {@code replicated-2}…. */
  private static void replicated(
      Map<String, Map<String, String>> variants, String endpoint, int replicas, String replicated) {
    for (int i = 1; i <= replicas; i++) {
      String name = i == 1 ? replicated : replicated + "-" + i;
      Map<String, String> traced = new LinkedHashMap<>();
      switch (replicated) {
        case "control" -> {}
        case "traced", "tenth", "unsampled" -> {
          traced.put("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint);
          traced.put("OTEL_SERVICE_NAME", name);
          if (replicated.equals("tenth")) {
            traced.put("OTEL_TRACES_SAMPLER", "parentbased_traceidratio");
            traced.put("OTEL_TRACES_SAMPLER_ARG", "0.1");
          } else if (replicated.equals("unsampled")) {
            traced.put("OTEL_TRACES_SAMPLER", "always_off");
          }
        }
        default ->
            throw new IllegalArgumentException(
                "--replicas-"
                    + replicated
                    + ": not one of --replicas-traced, -tenth, -unsampled, -control");
      }
      variants.put(name, traced);
    }
  }
}
