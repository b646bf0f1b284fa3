package dev.bolo.bench;

import java.util.ArrayList;
import java.util.Collections;
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
   * groups alike. The processes are started and loaded block by block ({@code gateway}, {@code
   * traced}; then {@code traced-2}, {@code off-2}; …), each block turned one place further, so that
   * every group holds early and late places alike: in a run before this order, two untraced groups
   * in the middle places came out 3.2 and 4.5 % above the untraced processes in the first and last
   * (docs/performance.md, run 31). That evens out the sums of the places, not every cost a place
   * brings: two groups still differed by about 5 % by their places alone (runs 35 and 37), so a
   * difference between two groups holds only when it holds with their roles swapped as well. The
   * groups take their places in the order {@code groups} names them, so naming two in the other
   * order swaps their places: a second run that way is the crossover.
   */
  static Map<String, Map<String, String>> of(
      String endpoint, boolean baselineTraced, int replicas, List<String> groups) {
    Map<String, Map<String, String>> variants = new LinkedHashMap<>();
    if (replicas > 1) {
      for (String group : groups) {
        if (!REPLICATED.contains(group)) {
          throw new IllegalArgumentException(
              "--replicas-"
                  + group
                  + ": not one of --replicas-traced, -tenth, -unsampled, -control");
        }
      }
      for (int i = 1; i <= replicas; i++) {
        List<String> block = new ArrayList<>();
        block.add(i == 1 ? GATEWAY : "off-" + i);
        for (String replicated : groups) {
          block.add(i == 1 ? replicated : replicated + "-" + i);
        }
        // Each block turned one place further than the one before, so that no group holds the
        // same places in the start and the load's order (a Latin square for replicas up to the
        // block's size).
        Collections.rotate(block, -(i - 1));
        for (String name : block) {
          if (!name.equals(GATEWAY)) {
            variants.put(name, variables(endpoint, name));
          }
        }
      }
      return variants;
    }
    if (baselineTraced) {
      variants.put(
          "baseline",
          Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint, "OTEL_SERVICE_NAME", "baseline"));
    }
    for (String single : List.of("traced", "tenth", "unsampled")) {
      variants.put(single, variables(endpoint, single));
    }
    return variants;
  }

  /** The groups that run in several processes, as {@code --replicas-…} names them. */
  private static final List<String> REPLICATED = List.of("traced", "tenth", "unsampled", "control");

  /** The untraced process the harness starts first, before every variant. */
  private static final String GATEWAY = "gateway";

  /** The variables of the replicated process {@code name} ({@code traced-2}, {@code off-3}…). */
  private static Map<String, String> variables(String endpoint, String name) {
    String group = name.replaceFirst("-[0-9]+$", "");
    Map<String, String> traced = new LinkedHashMap<>();
    switch (group) {
      case "off", "control" -> {}
      case "traced", "tenth", "unsampled" -> {
        traced.put("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint);
        traced.put("OTEL_SERVICE_NAME", name);
        if (group.equals("tenth")) {
          traced.put("OTEL_TRACES_SAMPLER", "parentbased_traceidratio");
          traced.put("OTEL_TRACES_SAMPLER_ARG", "0.1");
        } else if (group.equals("unsampled")) {
          traced.put("OTEL_TRACES_SAMPLER", "always_off");
        }
      }
      default -> throw new IllegalArgumentException("no such group: " + name);
    }
    return traced;
  }
}
