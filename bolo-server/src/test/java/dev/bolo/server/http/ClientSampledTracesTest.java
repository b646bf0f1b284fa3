package dev.bolo.server.http;

import static dev.bolo.server.http.TracedGateway.callOf;
import static dev.bolo.server.http.TracedGateway.randomHex;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.LogCapture;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import java.util.Map;
import java.util.Objects;
import mockwebserver3.RecordedRequest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What docs/operations/tracing.md offers a gateway short of CPU: {@code
 * OTEL_TRACES_SAMPLER=parentbased_always_off} traces the notes whose client sent a sampled {@code
 * traceparent}, and sends no span of any other note.
 */
class ClientSampledTracesTest {

  private static TracedGateway traced;

  @BeforeAll
  static void start() throws Exception {
    traced = TracedGateway.start(Map.of("OTEL_TRACES_SAMPLER", "parentbased_always_off"));
  }

  @AfterAll
  static void stop() throws Exception {
    traced.close();
  }

  @Test
  void aNoteTheClientSampledIsTracedAndANoteWithoutATraceIsNot() throws Exception {
    // A note without a traceparent: its access line names the trace its request's span began.
    String untraced;
    try (LogCapture logs = LogCapture.start()) {
      Gateway.Reply reply =
          traced.gateway.send(
              traced.gateway.nativeUpload(Gateway.TOKEN_A, TestAudio.wav(680, 521)));
      assertThat(reply.status()).as(reply.body()).isEqualTo(200);
      Await.until(
          () -> accessTrace(logs.text()) != null,
          () -> "an access line with a trace in:\n" + logs.text());
      untraced = Objects.requireNonNull(accessTrace(logs.text()));
    }
    RecordedRequest call = callOf(traced.primary, untraced);
    assertThat(sampled(call)).isFalse();

    // A note the client sampled: the whole story arrives, and the provider hears it sampled.
    String sampled = randomHex(16);
    assertThat(traced.send(TestAudio.wav(690, 522), sampled, randomHex(8)).status()).isEqualTo(200);
    traced.awaitSpans(
        sampled, "POST /v1/transcriptions", "read upload", "resolve work key", "engine attempt");
    assertThat(sampled(callOf(traced.primary, sampled))).isTrue();

    // Sent after the untraced note's answer, the sampled note's spans came; the other's never did.
    assertThat(traced.receiver.trace(untraced)).isEmpty();
  }

  /** Whether the provider's call carries its trace flagged sampled (W3C trace flags, bit 0). */
  private static boolean sampled(RecordedRequest call) {
    String traceparent = Objects.requireNonNull(call.getHeaders().get("traceparent"));
    return (Integer.parseInt(traceparent.substring(traceparent.lastIndexOf('-') + 1), 16) & 1) == 1;
  }

  /** The trace id of the first access line of a note answered 200. */
  private static @Nullable String accessTrace(String logged) {
    return logged
        .lines()
        .filter(line -> line.contains("trace_id=") && line.contains("-> 200"))
        .map(line -> line.replaceAll(".*trace_id=([0-9a-f]{32}).*", "$1"))
        .findFirst()
        .orElse(null);
  }
}
