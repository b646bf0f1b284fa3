package dev.bolo.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The gateways a pooled run of {@code TracingOverhead} starts, and how each is traced. */
class TracingVariantsTest {

  private static final String SINK = "http://127.0.0.1:4318";

  @Test
  void severalGroupsNamedTogetherEachRunInEveryReplicaBesideTheUntracedOnes() {
    List<String> groups =
        TracingOverhead.replicatedGroups(
            new String[] {
              "--together", "--replicas=2", "--replicas-unsampled", "--replicas-traced"
            });
    assertThat(groups).containsExactly("unsampled", "traced");

    Map<String, Map<String, String>> variants = TracingVariants.of(SINK, false, 2, groups);

    // The untraced `gateway` is the harness's own, started first; the second block turned by one.
    assertThat(variants.keySet())
        .containsExactly("unsampled", "traced", "unsampled-2", "traced-2", "off-2");
    assertThat(variants.get("unsampled-2"))
        .containsEntry("OTEL_TRACES_SAMPLER", "always_off")
        .containsEntry("OTEL_SERVICE_NAME", "unsampled-2")
        .containsEntry("OTEL_EXPORTER_OTLP_ENDPOINT", SINK);
    assertThat(variants.get("traced")).doesNotContainKey("OTEL_TRACES_SAMPLER");
    assertThat(variants.get("off-2")).isEmpty();
  }

  @Test
  void everyGroupHoldsEarlyAndLatePlacesAlike() {
    Map<String, Map<String, String>> variants =
        TracingVariants.of(SINK, false, 3, List.of("control", "traced"));

    // With `gateway` in the first place, each group's three places add up to the same.
    assertThat(order(variants))
        .containsExactly(
            "gateway",
            "control",
            "traced",
            "control-2",
            "traced-2",
            "off-2",
            "traced-3",
            "off-3",
            "control-3");
    assertThat(variants.get("control-3")).isEmpty();
    assertThat(variants.get("traced-3")).containsEntry("OTEL_SERVICE_NAME", "traced-3");
  }

  @Test
  void namingTheGroupsTheOtherWayRoundSwapsTheirPlaces() {
    List<String> firstWay = order(TracingVariants.of(SINK, false, 3, List.of("control", "traced")));
    List<String> otherWay = order(TracingVariants.of(SINK, false, 3, List.of("traced", "control")));

    // The places `control` holds one way are the ones `traced` holds the other: a crossover.
    assertThat(placesOf("control", firstWay)).containsExactly(2, 4, 9);
    assertThat(placesOf("traced", firstWay)).containsExactly(3, 5, 7);
    assertThat(placesOf("traced", otherWay)).containsExactly(2, 4, 9);
    assertThat(placesOf("control", otherWay)).containsExactly(3, 5, 7);
    assertThat(placesOf("off", otherWay)).isEqualTo(placesOf("off", firstWay));
  }

  /** The processes in the order they start, `gateway` first. */
  private static List<String> order(Map<String, Map<String, String>> variants) {
    List<String> order = new java.util.ArrayList<>(List.of("gateway"));
    order.addAll(variants.keySet());
    return order;
  }

  /** The places (from 1) of {@code group}'s processes; `off` includes `gateway`. */
  private static List<Integer> placesOf(String group, List<String> order) {
    List<Integer> places = new java.util.ArrayList<>();
    for (int i = 0; i < order.size(); i++) {
      String name = order.get(i).replaceFirst("-[0-9]+$", "");
      if (name.equals(group) || (group.equals("off") && name.equals("gateway"))) {
        places.add(i + 1);
      }
    }
    return places;
  }

  @Test
  void everyNoteSampledWhenNoGroupIsNamedAndAnUnknownGroupIsRefused() {
    assertThat(TracingOverhead.replicatedGroups(new String[] {"--replicas=3"}))
        .containsExactly("traced");
    assertThatThrownBy(() -> TracingVariants.of(SINK, false, 3, List.of("half")))
        .hasMessageContaining("--replicas-half");
  }

  @Test
  void oneGroupAgainstAnotherIsEachRoundsMeanOverTheOthersNamedAsThoseGroups() {
    // Two rounds; `traced` spends 1.1 and 1.2 times what `unsampled` does in each.
    Map<String, List<LoadResult>> results =
        Map.of(
            "unsampled", List.of(round(100, 1000), round(100, 2000)),
            "unsampled-2", List.of(round(100, 1000), round(100, 2000)),
            "traced", List.of(round(100, 1100), round(100, 2400)),
            "traced-2", List.of(round(100, 1100), round(100, 2400)));
    StringBuilder out = new StringBuilder();

    PooledRatios.append(
        out,
        results,
        name -> name.startsWith("traced"),
        name -> name.startsWith("unsampled"),
        LoadResult.SERVER,
        "Gateway CPU per note, `traced` against `unsampled`",
        "`traced`",
        "`unsampled`");

    assertThat(out.toString())
        .contains("## Gateway CPU per note, `traced` against `unsampled`: 2 `traced` processes")
        .contains("the `traced` processes' mean CPU per note over the `unsampled` ones'")
        .contains("Median of 2 rounds **1.150**")
        .contains("| traced-2 | 1.150 |");
  }

  @Test
  void aRunsGroupsAreEachPooledAgainstTheUntracedAndAgainstEachOtherAsNamed() {
    // One round: off 1.0 ms a request, `unsampled` 1.02, `traced` 1.071 (1.05 times `unsampled`).
    Map<String, List<LoadResult>> results = new java.util.LinkedHashMap<>();
    results.put("gateway", List.of(round(1000, 1000)));
    results.put("unsampled", List.of(round(1000, 1020)));
    results.put("traced", List.of(round(1000, 1071)));
    results.put("off-2", List.of(round(1000, 1000)));
    results.put("traced-2", List.of(round(1000, 1071)));
    results.put("unsampled-2", List.of(round(1000, 1020)));
    StringBuilder out = new StringBuilder();

    PooledRatios.appendGroups(
        out,
        results,
        List.of("unsampled", "traced"),
        List.of(LoadResult.SERVER),
        role -> "Duplicate storms, gateway CPU per request");

    assertThat(out.toString())
        .contains("## Duplicate storms, gateway CPU per request, `unsampled`: 2 traced processes")
        .contains("## Duplicate storms, gateway CPU per request, `traced`: 2 traced processes")
        .contains("Median of 1 rounds **1.020**")
        .contains("Median of 1 rounds **1.071**")
        .contains("## Duplicate storms, gateway CPU per request, `traced` against `unsampled`")
        .contains("Median of 1 rounds **1.050**")
        .doesNotContain("`unsampled` against `traced`");
  }

  private static LoadResult round(long notes, long cpuMillis) {
    return new LoadResult(notes, 10_000_000, 200_000, 210_000, 0, 0, 0, Map.of())
        .withServerCpuMillis(cpuMillis);
  }
}
