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

    // The untraced `gateway` is the harness's own; its replicas follow the traced groups.
    assertThat(variants.keySet())
        .containsExactly("unsampled", "unsampled-2", "traced", "traced-2", "off-2");
    assertThat(variants.get("unsampled-2"))
        .containsEntry("OTEL_TRACES_SAMPLER", "always_off")
        .containsEntry("OTEL_SERVICE_NAME", "unsampled-2")
        .containsEntry("OTEL_EXPORTER_OTLP_ENDPOINT", SINK);
    assertThat(variants.get("traced")).doesNotContainKey("OTEL_TRACES_SAMPLER");
    assertThat(variants.get("off-2")).isEmpty();
  }

  @Test
  void everyNoteSampledWhenNoGroupIsNamedAndAnUnknownGroupIsRefused() {
    assertThat(TracingOverhead.replicatedGroups(new String[] {"--replicas=3"}))
        .containsExactly("traced");
    assertThatThrownBy(() -> TracingVariants.of(SINK, false, 3, List.of("half")))
        .hasMessageContaining("--replicas-half");
  }
}
