package dev.bolo.bench;

import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.server.testing.TraceReceiver;
import dev.bolo.server.testing.TraceReceiver.Received;
import dev.bolo.testkit.Await;
import dev.bolo.testkit.Directories;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;

/**
 * The example traces of docs/operations/tracing.md, drawn from real spans: a gateway with traces on
 * (as {@code TracedNoteTest} starts it: two OpenAI-compatible providers behind one route, spans
 * sent over OTLP/HTTP to a {@link TraceReceiver} that decodes the protocol) answers
 *
 * <ul>
 *   <li>four copies of one note sent 40 ms apart while the provider takes 800 ms (a duplicate
 *       storm: one owner, three copies joined with a link to it), and
 *   <li>a note whose first target answers 503 after 250 ms and whose second transcribes it (a
 *       failover),
 * </ul>
 *
 * and each is drawn as a waterfall ({@link TraceWaterfall}) into {@code
 * docs/operations/trace-duplicate-storm.svg} and {@code trace-failover.svg}. It fails, writing
 * nothing, when the spans do not tell that story or when an attribute names the token, the device,
 * a provider key, the transcript or the audio.
 *
 * <p>Usage: {@code bolo-bench/run TracePictures [--out DIR]}
 */
public final class TracePictures {

  private static final String KEY_PRIMARY = "sk-primary-bench";
  private static final String KEY_BACKUP = "sk-backup-bench";

  private TracePictures() {}

  public static void main(String[] args) throws Exception {
    Path out =
        Path.of(
            BenchArgs.parse(args)
                .text("--out", HarnessRun.checkout().resolve("docs/operations").toString()));
    Path dataDir = Files.createTempDirectory("bolo-trace-pictures-");
    try (AutoCloseable d = () -> Directories.deleteTree(dataDir);
        TraceReceiver receiver = new TraceReceiver();
        FakeProvider primary = new FakeProvider();
        FakeProvider backup = new FakeProvider();
        Gateway gateway = Gateway.withRealTime(environment(receiver, primary, backup, dataDir))) {
      primary.delay(Duration.ofMillis(800));
      List<String> storm = duplicateStorm(gateway, receiver);
      primary.delay(Duration.ofMillis(250));
      primary.enqueue(FakeProvider.overloaded());
      backup.delay(Duration.ofMillis(600));
      List<String> failover =
          List.of(traceOf(gateway, receiver, send(gateway, TestAudio.wav(3000, 52))));

      List<Received> stormSpans = spansOf(receiver, storm, 14);
      check(stormSpans, "engine attempt", 1);
      check(stormSpans, "resolve work key", 4);
      if (stormSpans.stream().filter(s -> !s.linkedSpanIds().isEmpty()).count() != 3) {
        throw new IllegalStateException("the storm's three copies did not join the owner");
      }
      List<Received> failoverSpans = spansOf(receiver, failover, 7);
      check(failoverSpans, "engine attempt", 2);
      for (List<Received> spans : List.of(stormSpans, failoverSpans)) {
        if (spans.stream().filter(s -> s.events().contains("charge")).count() != 1) {
          throw new IllegalStateException("not one charge event: " + spans);
        }
      }
      for (Received span : receiver.spans()) {
        noPrivateAttribute(span);
      }
      write(
          out.resolve("trace-duplicate-storm.svg"),
          TraceWaterfall.svg(
              "A duplicate storm: four copies of one note at once, the provider takes 800 ms",
              stormSpans,
              storm));
      write(
          out.resolve("trace-failover.svg"),
          TraceWaterfall.svg(
              "A failover: the first target answers 503 after 250 ms, the second transcribes",
              failoverSpans,
              failover));
    }
  }

  private static Map<String, String> environment(
      TraceReceiver receiver, FakeProvider primary, FakeProvider backup, Path dataDir) {
    Map<String, String> env = new HashMap<>();
    env.put("BOLO_PORT", "0");
    env.put("BOLO_DATA_DIR", dataDir.toString());
    env.put("BOLO_DEVICE_TOKENS", "alpha=" + Gateway.TOKEN_A);
    env.put("BOLO_ENGINES", "primary,backup");
    env.put("BOLO_ENGINE_PRIMARY_KIND", "openai");
    env.put("BOLO_ENGINE_PRIMARY_BASE_URL", primary.baseUrl());
    env.put("BOLO_ENGINE_PRIMARY_API_KEY", KEY_PRIMARY);
    env.put("BOLO_ENGINE_BACKUP_KIND", "openai");
    env.put("BOLO_ENGINE_BACKUP_BASE_URL", backup.baseUrl());
    env.put("BOLO_ENGINE_BACKUP_API_KEY", KEY_BACKUP);
    env.put("BOLO_ROUTES", "whisper-1=primary/whisper-1,backup/whisper-1");
    env.put("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint());
    env.put("OTEL_BSP_SCHEDULE_DELAY", "20");
    return env;
  }

  /** Four copies of one note, 40 ms apart; the trace ids of their requests, in sending order. */
  private static List<String> duplicateStorm(Gateway gateway, TraceReceiver receiver)
      throws Exception {
    byte[] note = TestAudio.wav(3000, 51);
    List<Future<Gateway.Reply>> replies = new ArrayList<>();
    try (ExecutorService phones = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int copy = 0; copy < 4; copy++) {
        replies.add(phones.submit(() -> send(gateway, note)));
        Thread.sleep(40);
      }
      List<String> traces = new ArrayList<>();
      for (Future<Gateway.Reply> reply : replies) {
        traces.add(traceOf(gateway, receiver, reply.get()));
      }
      return traces;
    }
  }

  private static Gateway.Reply send(Gateway gateway, byte[] note) throws Exception {
    Gateway.Reply reply = gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, note));
    if (reply.status() != 200) {
      throw new IllegalStateException(
          "the gateway answered " + reply.status() + ": " + reply.body());
    }
    return reply;
  }

  /** The trace of the request that got {@code reply}, once its server span has arrived. */
  private static String traceOf(Gateway gateway, TraceReceiver receiver, Gateway.Reply reply)
      throws InterruptedException {
    String requestId = Objects.requireNonNull(reply.requestId());
    Await.until(
        () -> serverSpan(receiver, requestId) != null,
        () -> "no span of request " + requestId + " among " + receiver.spans().size());
    return Objects.requireNonNull(serverSpan(receiver, requestId)).traceId();
  }

  private static @Nullable Received serverSpan(TraceReceiver receiver, String requestId) {
    return receiver.spans().stream()
        .filter(s -> s.attribute("bolo.request_id").orElse("").equals(requestId))
        .findFirst()
        .orElse(null);
  }

  /** The spans of these traces, once at least {@code expected} have arrived, by start. */
  private static List<Received> spansOf(TraceReceiver receiver, List<String> traces, int expected)
      throws InterruptedException {
    Await.until(
        () -> traces.stream().mapToInt(t -> receiver.trace(t).size()).sum() >= expected,
        () -> "spans: " + traces.stream().map(t -> receiver.trace(t).size()).toList());
    List<Received> spans = new ArrayList<>();
    traces.forEach(t -> spans.addAll(receiver.trace(t)));
    spans.sort(Comparator.comparingLong(s -> s.span().getStartTimeUnixNano()));
    return spans;
  }

  private static void check(List<Received> spans, String name, int count) {
    long found = spans.stream().filter(s -> s.name().equals(name)).count();
    if (found != count) {
      throw new IllegalStateException(found + " spans named " + name + ", not " + count);
    }
  }

  private static void noPrivateAttribute(Received span) {
    for (String attribute : span.allAttributes()) {
      for (String secret :
          List.of(Gateway.TOKEN_A, "alpha", KEY_PRIMARY, KEY_BACKUP, "transcript of", "RIFF")) {
        if (attribute.contains(secret)) {
          throw new IllegalStateException(span.name() + " carries " + attribute);
        }
      }
    }
  }

  private static void write(Path file, String svg) throws java.io.IOException {
    Files.writeString(file, svg, StandardCharsets.UTF_8);
    System.out.println("written to " + file);
  }
}
