package dev.bolo.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.testkit.Await;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The client vectors ({@code client-vectors/*.json} at the repository's top), shared with the
 * JavaScript package's tests, run against the stand-in gateway they describe ({@code
 * client-vectors/stand-in.mjs}, started once as a Node.js process): one behaviour, two SDKs, one
 * table. Node.js must be on the PATH ({@code .ci/run} installs it); without it this test fails.
 */
class ClientVectorsTest {

  private static final Path VECTORS = Path.of("..", "client-vectors");

  private static @Nullable Process standIn;
  private static int port;

  /** What the stand-in has received, by vector. */
  private static final Map<String, List<Map<?, ?>>> SEEN = new ConcurrentHashMap<>();

  /** What to do when a vector's request arrives: a cancel at that request, say. */
  private static final Map<String, IntConsumer> ON_REQUEST = new ConcurrentHashMap<>();

  @BeforeAll
  static void startStandIn() throws Exception {
    Process node;
    try {
      node =
          new ProcessBuilder("node", VECTORS.resolve("stand-in.mjs").toString())
              .redirectError(ProcessBuilder.Redirect.INHERIT)
              .start();
    } catch (IOException e) {
      throw new AssertionError(
          "Node.js is not on the PATH, so the client vectors' stand-in cannot run; install it"
              + " (Debian: apt-get install nodejs; .ci/run does this)",
          e);
    }
    standIn = node;
    BufferedReader lines =
        new BufferedReader(new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8));
    String first = lines.readLine();
    assertThat(first).as("the stand-in's port").isNotNull().startsWith("{\"port\":");
    port = ((Number) Objects.requireNonNull(object(first).get("port"))).intValue();
    Thread reader = new Thread(() -> read(lines), "stand-in-reader");
    reader.setDaemon(true);
    reader.start();
  }

  @AfterAll
  static void stopStandIn() throws Exception {
    Process node = standIn;
    if (node == null) {
      return;
    }
    // The stand-in ends when its input closes.
    node.getOutputStream().close();
    if (!node.waitFor(10, TimeUnit.SECONDS)) {
      node.destroyForcibly();
    }
  }

  private static void read(BufferedReader lines) {
    try {
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        Map<?, ?> event = object(line);
        String vector = String.valueOf(event.get("vector"));
        if (Boolean.TRUE.equals(event.get("deleted"))) {
          continue;
        }
        SEEN.computeIfAbsent(vector, v -> new CopyOnWriteArrayList<>()).add(event);
        IntConsumer action = ON_REQUEST.get(vector);
        if (action != null) {
          action.accept(((Number) Objects.requireNonNull(event.get("n"))).intValue());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Stream<String> vectors() throws IOException {
    try (Stream<Path> files = Files.list(VECTORS)) {
      return files
          .map(file -> file.getFileName().toString())
          .filter(name -> name.endsWith(".json"))
          .map(name -> name.substring(0, name.length() - ".json".length()))
          .sorted()
          .collect(Collectors.toList())
          .stream();
    }
  }

  @Test
  void thereIsAVectorForEachScenarioTheSdksShare() throws IOException {
    assertThat(vectors().count()).isGreaterThanOrEqualTo(20);
  }

  @ParameterizedTest
  @MethodSource("vectors")
  void theJavaSdkEndsEachVectorAsItSays(String name) throws Exception {
    Map<?, ?> vector = object(Files.readString(VECTORS.resolve(name + ".json")));
    Map<?, ?> settings = map(vector, "client");
    Map<?, ?> cancel = vector.get("cancel") instanceof Map<?, ?> c ? c : Map.of();
    List<?> exchanges = (List<?>) Objects.requireNonNull(vector.get("exchanges"));
    Map<?, ?> expect = map(vector, "expect");

    FakeTime time = new FakeTime();
    FakeScheduler scheduler = new FakeScheduler(time);
    BoloClient.Builder builder =
        BoloClient.builder()
            .baseUrl("http://127.0.0.1:" + port + "/" + name + "/")
            .token("device-token")
            .policy(ResendPolicy.standard().withoutJitter())
            .timing(scheduler.timing())
            .lookupBeforeResend(Boolean.TRUE.equals(settings.get("lookupBeforeResend")))
            .resumableThreshold(number(settings, "resumableThresholdBytes"));
    if (settings.get("timeoutsMs") instanceof Map<?, ?> timeouts) {
      builder.uploadTimeouts(
          Duration.ofMillis(number(timeouts, "base")),
          Duration.ofMillis(number(timeouts, "min")),
          Duration.ofMillis(number(timeouts, "max")));
    }
    BoloClient client = builder.build();
    byte[] bytes = new byte[(int) number(map(vector, "note"), "bytes")];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) i;
    }
    VoiceNote note = VoiceNote.ofBytes(bytes, "note.wav");

    Outcome outcome;
    if (Boolean.TRUE.equals(cancel.get("before"))) {
      // A thread already interrupted starts no attempt: the synchronous call's cancel.
      Thread.currentThread().interrupt();
      try {
        outcome = client.transcribe(note, TranscriptionOptions.defaults());
      } finally {
        Thread.interrupted();
      }
    } else {
      outcome = runAsync(name, client, note, cancel, scheduler);
    }

    assertThat(kindOf(outcome)).as("%s", outcome).isEqualTo(expect.get("outcome"));
    if (outcome instanceof Outcome.Transcribed transcribed) {
      assertThat(transcribed.transcript().text()).isEqualTo(expect.get("text"));
    } else {
      assertThat(outcome.attempts()).isEqualTo(number(expect, "attempts"));
    }
    Failure failure = failureOf(outcome);
    if (expect.get("status") != null) {
      assertThat(failure).isInstanceOf(Failure.Http.class);
      Failure.Http http = (Failure.Http) Objects.requireNonNull(failure);
      assertThat(http.status()).isEqualTo(number(expect, "status"));
      assertThat(http.code()).isEqualTo(expect.get("code"));
    }
    assertThat(scheduler.pauses().stream().map(Duration::toMillis))
        .as("pauses")
        .containsExactlyElementsOf(
            ((List<?>) Objects.requireNonNull(expect.get("pausesMs")))
                .stream().map(p -> ((Number) p).longValue()).collect(Collectors.toList()));
    Await.until(
        () -> seen(name).size() >= exchanges.size(),
        () -> "the stand-in saw " + seen(name) + ", the vector scripts " + exchanges.size());
    assertThat(seen(name)).as("requests").hasSize(exchanges.size());
    assertThat(seen(name)).noneMatch(event -> Boolean.TRUE.equals(event.get("unexpected")));
    assertThat(
            seen(name).stream()
                .map(event -> event.get("idempotencyKey"))
                .filter(String.class::isInstance)
                .distinct())
        .as("one Idempotency-Key per note")
        .hasSizeLessThanOrEqualTo(1);
  }

  private static Outcome runAsync(
      String name, BoloClient client, VoiceNote note, Map<?, ?> cancel, FakeScheduler scheduler)
      throws Exception {
    List<TranscriptionHandle> started = new ArrayList<>(1);
    CountDownLatch handed = new CountDownLatch(1);
    Object atRequest = cancel.get("atRequest");
    Object duringPause = cancel.get("duringPause");
    if (atRequest != null) {
      ON_REQUEST.put(
          name,
          n -> {
            if (n == ((Number) atRequest).intValue()) {
              awaitQuietly(handed);
              started.get(0).cancel();
            }
          });
    }
    if (duringPause != null) {
      scheduler.duringPause(
          index -> {
            if (index + 1 == ((Number) duringPause).intValue()) {
              handed.await();
              started.get(0).cancel();
            }
          });
      scheduler.cancelledWhen(() -> started.get(0).isCancelled());
    }
    started.add(client.transcribeAsync(note, TranscriptionOptions.defaults()));
    handed.countDown();
    return started.get(0).await(Duration.ofSeconds(30));
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** How a note ended, in the vectors' words. */
  private static String kindOf(Outcome outcome) {
    if (outcome instanceof Outcome.Transcribed) {
      return "transcribed";
    }
    if (outcome instanceof Outcome.Refused) {
      return "refused";
    }
    if (outcome instanceof Outcome.GaveUp) {
      return "gave-up";
    }
    if (outcome instanceof Outcome.Cancelled) {
      return "cancelled";
    }
    return outcome.toString();
  }

  private static @Nullable Failure failureOf(Outcome outcome) {
    if (outcome instanceof Outcome.Refused refused) {
      return refused.error();
    }
    if (outcome instanceof Outcome.GaveUp gaveUp) {
      return gaveUp.lastFailure();
    }
    return null;
  }

  private static List<Map<?, ?>> seen(String name) {
    return SEEN.getOrDefault(name, List.of());
  }

  private static Map<?, ?> object(String json) {
    return (Map<?, ?>) Json.parse(json);
  }

  private static Map<?, ?> map(Map<?, ?> json, String key) {
    return (Map<?, ?>) Objects.requireNonNull(json.get(key), key);
  }

  private static long number(Map<?, ?> json, String key) {
    return ((Number) Objects.requireNonNull(json.get(key), key)).longValue();
  }
}
