package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.TraceReceiver;
import dev.bolo.server.testing.TraceReceiver.Received;
import dev.bolo.testkit.Await;
import dev.bolo.testkit.Directories;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import mockwebserver3.RecordedRequest;
import okhttp3.Request;

/**
 * {@link TracedNoteTest}'s gateway: traces on, sent to an OTLP/HTTP receiver that decodes what the
 * SDK sends, two providers behind one route ({@code whisper-1}, and {@code probe-1} whose breakers
 * no other test uses), notes over 20 s sent in pieces, an admin token; with what its tests ask of
 * it.
 */
final class TracedGateway implements AutoCloseable {

  static final String ADMIN_TOKEN = "admin-token-0123456789abcdef";

  final FakeProvider primary;
  final FakeProvider backup;
  final TraceReceiver receiver;
  final Gateway gateway;
  private final Path dataDir;

  private TracedGateway(
      FakeProvider primary,
      FakeProvider backup,
      TraceReceiver receiver,
      Path dataDir,
      Gateway gateway) {
    this.primary = primary;
    this.backup = backup;
    this.receiver = receiver;
    this.dataDir = dataDir;
    this.gateway = gateway;
  }

  static TracedGateway start() throws Exception {
    return start(Map.of());
  }

  /** The gateway with {@code variables} (a sampler, say) over its own. */
  static TracedGateway start(Map<String, String> variables) throws Exception {
    FakeProvider primary = new FakeProvider();
    FakeProvider backup = new FakeProvider();
    TraceReceiver receiver = new TraceReceiver();
    Path dataDir = Files.createTempDirectory("bolo-traced-");
    Map<String, String> env = new HashMap<>();
    env.put("BOLO_PORT", "0");
    env.put("BOLO_DATA_DIR", dataDir.toString());
    env.put("BOLO_DEVICE_TOKENS", "alpha=" + Gateway.TOKEN_A);
    env.put("BOLO_ADMIN_TOKEN", ADMIN_TOKEN);
    env.put("BOLO_ENGINES", "primary,backup");
    env.put("BOLO_ENGINE_PRIMARY_KIND", "openai");
    env.put("BOLO_ENGINE_PRIMARY_BASE_URL", primary.baseUrl());
    env.put("BOLO_ENGINE_PRIMARY_API_KEY", "sk-primary");
    env.put("BOLO_ENGINE_BACKUP_KIND", "openai");
    env.put("BOLO_ENGINE_BACKUP_BASE_URL", backup.baseUrl());
    env.put("BOLO_ENGINE_BACKUP_API_KEY", "sk-backup");
    env.put(
        "BOLO_ROUTES",
        "whisper-1=primary/whisper-1,backup/whisper-1;probe-1=primary/probe-1,backup/probe-1");
    // A note longer than 20 s goes in pieces; the others here are shorter than a second.
    env.put("BOLO_OPENAI_MAX_SECONDS", "20");
    env.put("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint());
    // Small batches, sent soon: the receiver sees a note's spans shortly after its answer.
    env.put("OTEL_BSP_SCHEDULE_DELAY", "20");
    env.putAll(variables);
    return new TracedGateway(primary, backup, receiver, dataDir, Gateway.withEnvironment(env));
  }

  @Override
  public void close() throws Exception {
    try (AutoCloseable d = () -> Directories.deleteTree(dataDir);
        TraceReceiver r = receiver;
        FakeProvider p = primary;
        FakeProvider b = backup;
        Gateway g = gateway) {
      primary.release();
    }
  }

  /** Uploads {@code note} as device alpha within {@code traceId}, as {@code parentSpan}'s child. */
  Gateway.Reply send(byte[] note, String traceId, String parentSpan, String... fields)
      throws Exception {
    Request request =
        gateway
            .nativeUpload(Gateway.TOKEN_A, note, fields)
            .newBuilder()
            .header("traceparent", "00-" + traceId + "-" + parentSpan + "-01")
            .build();
    return gateway.send(request);
  }

  /** A trace's spans by name (the last of each name). */
  record Spans(Map<String, Received> byName) {
    Received get(String name) {
      Received span = byName.get(name);
      assertThat(span).as("a span named " + name + " among " + byName.keySet()).isNotNull();
      return Objects.requireNonNull(span);
    }
  }

  /** The trace's spans by name once those named have arrived. */
  Spans awaitSpans(String traceId, String... names) throws InterruptedException {
    Await.until(
        () ->
            receiver.trace(traceId).stream()
                .map(Received::name)
                .toList()
                .containsAll(List.of(names)),
        () -> "spans of " + traceId + ": " + receiver.trace(traceId));
    Map<String, Received> byName = new HashMap<>();
    receiver.trace(traceId).forEach(s -> byName.put(s.name(), s));
    return new Spans(byName);
  }

  /** The one span named {@code name} among {@code spans}. */
  static Received only(List<Received> spans, String name) {
    List<Received> named = spans.stream().filter(s -> s.name().equals(name)).toList();
    assertThat(named).as(name).hasSize(1);
    return named.get(0);
  }

  /** The provider's call within {@code traceId}; the calls of earlier tests are passed over. */
  static RecordedRequest callOf(FakeProvider provider, String traceId) throws InterruptedException {
    while (true) {
      RecordedRequest call = provider.takeRequest();
      String traceparent = call.getHeaders().get("traceparent");
      if (traceparent != null && traceparent.contains(traceId)) {
        return call;
      }
    }
  }

  /** No attribute of any span names the token, the device, the transcript or the audio. */
  static void assertNothingPrivate(List<Received> spans) {
    TraceReceiver.assertNothingPrivate(spans, "alpha", "sk-primary", "sk-backup");
  }

  /** The sum of the gateway's series named {@code name} on {@code /metrics}; -1 when unread. */
  double metric(String name) {
    try {
      Gateway.Reply reply =
          gateway.send(new Request.Builder().url(gateway.url("/metrics")).build());
      return reply
          .body()
          .lines()
          .filter(line -> line.startsWith(name + " ") || line.startsWith(name + "{"))
          .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
          .sum();
    } catch (IOException e) {
      return -1;
    }
  }

  /** {@code bytes} random bytes in hex: a trace's id (16) or a span's (8). */
  static String randomHex(int bytes) {
    byte[] random = new byte[bytes];
    ThreadLocalRandom.current().nextBytes(random);
    return HexFormat.of().formatHex(random);
  }
}
