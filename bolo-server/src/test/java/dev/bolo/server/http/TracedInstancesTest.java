package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.testing.ClusterExtension;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.Storm;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.server.testing.TraceReceiver;
import dev.bolo.server.testing.TraceReceiver.Received;
import dev.bolo.testkit.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A note's trace across gateway instances (docs/operations/tracing.md, "Several instances"): two
 * instances sharing a real Redis ({@link ClusterExtension}), traced to one OTLP/HTTP receiver, as
 * an operator's instances send to one collector.
 */
class TracedInstancesTest {

  /** Upper bound for anything awaited here; a healthy run needs a fraction of it. */
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  @RegisterExtension final ClusterExtension cluster = new ClusterExtension();

  private final TraceReceiver receiver = newReceiver();

  @Test
  void fourCopiesOnTwoInstancesAreOneEngineAttemptAndThreeLinksToTheOwnersResolution()
      throws Exception {
    // Closed after the instances, which send their last spans as they stop.
    cluster.closeAfterTest(receiver);
    List<Gateway> instances = List.of(traced("a"), traced("b"));
    byte[] note = TestAudio.wav(900, 515);

    try (Storm storm = new Storm(instances, cluster.provider(), 4, PATIENCE)) {
      // Two copies on each instance, all four in flight at once: the provider holds its one call
      // until each copy waits, and the instance that lost the claim waits on the other's.
      List<Future<Gateway.Reply>> replies = storm.atTheProvider(List.of(note));
      cluster.provider().release();
      assertThat(storm.statuses(replies)).isEqualTo(Map.of(200, 4));
    }

    Await.until(
        PATIENCE,
        () -> named("resolve work key").size() == 4 && named("POST /v1/transcriptions").size() == 4,
        () -> "spans received: " + receiver.spans().stream().map(Received::name).toList());
    List<Received> resolutions = named("resolve work key");
    TraceReceiver.Resolved resolved = TraceReceiver.assertOneOwnerLinkedByTheRest(resolutions);
    Received owner = resolved.owner();
    List<Received> joined = resolved.joined();
    assertThat(joined.stream().map(TracedInstancesTest::instanceOf).collect(Collectors.toSet()))
        .as("the instances of the joined copies")
        .isEqualTo(Set.of("a", "b"));

    List<Received> attempts = named("engine attempt");
    assertThat(attempts).hasSize(1);
    assertThat(attempts.get(0).traceId()).isEqualTo(owner.traceId());
    assertThat(attempts.get(0).parentId()).isEqualTo(owner.spanId());
    assertThat(cluster.provider().calls()).isEqualTo(1);
    TraceReceiver.assertNothingPrivate(
        receiver.spans(), Gateway.TOKEN_A, "alpha", "sk-test", "transcript of");
    assertThat(receiver.refused()).isEmpty();
  }

  /**
   * An instance of the cluster sending its spans to the receiver, named in their resource as an
   * operator names instances: the SDK's own random name is one per process, and both run in this
   * one.
   */
  private Gateway traced(String instance) {
    Map<String, String> env = cluster.environment(instance);
    env.put("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint());
    env.put("OTEL_RESOURCE_ATTRIBUTES", "service.instance.id=" + instance);
    // Small batches, sent soon: the receiver sees a note's spans shortly after its answer.
    env.put("OTEL_BSP_SCHEDULE_DELAY", "20");
    return cluster.closeAfterTest(Gateway.withEnvironment(env));
  }

  private List<Received> named(String name) {
    return receiver.spans().stream().filter(s -> s.name().equals(name)).toList();
  }

  private static String instanceOf(Received span) {
    return span.resource().getOrDefault("service.instance.id", "");
  }

  private static TraceReceiver newReceiver() {
    try {
      return new TraceReceiver();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
