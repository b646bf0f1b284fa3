package dev.bolo.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.bolo.server.config.ServerConfig;
import dev.bolo.server.engine.SpeechEngine;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.server.testing.ThreadDump;
import dev.bolo.server.testing.TraceReceiver;
import dev.bolo.testkit.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import okio.Buffer;
import okio.BufferedSink;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The composition root gives back what it took when a start fails, a drain always ends, and a stop
 * lets the threads in a route leave first.
 */
class AppTest {

  @TempDir Path dataDir;

  @Test
  void aStartThatFailsAfterTakingTheInstanceSlotGivesTheSlotBack() throws Exception {
    try (FakeProvider provider = new FakeProvider()) {
      ServerConfig config = ServerConfig.fromMap(Gateway.openAiEnvironment(provider, dataDir));
      UnaryOperator<SpeechEngine> failing =
          engine -> {
            throw new IllegalStateException("the engine cannot be wrapped");
          };

      assertThatThrownBy(() -> buildWithEngineView(config, failing))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("the engine cannot be wrapped");

      // The failed start's slot 0 is free again: the next start on this data directory takes it.
      try (InstanceSlot next = InstanceSlot.acquire(dataDir, config.spoolRoot())) {
        assertThat(next.index()).isZero();
      }
    }
  }

  @Test
  void aDrainEndsAtItsTimeoutWhenTheTickerStandsStill() throws Exception {
    try (FakeProvider provider = new FakeProvider().hold();
        Gateway gateway = Gateway.openAi(provider, dataDir, Map.of())) {
      CompletableFuture<Gateway.Reply> held =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return gateway.send(
                      gateway.nativeUpload(Gateway.TOKEN_A, TestAudio.wav(1_000, 7)));
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
      Await.until(() -> provider.calls() == 1, () -> "provider calls: " + provider.calls());

      // Gateway's ticker moves only when a test advances it; nobody does here.
      boolean drained =
          assertTimeoutPreemptively(
              Duration.ofSeconds(20), () -> gateway.app().drain(Duration.ofMillis(300)));

      assertThat(drained).isFalse();
      provider.release();
      held.join();
    }
  }

  @ParameterizedTest(name = "traces on: {0}")
  @ValueSource(booleans = {false, true})
  void theGatewaysStopWaitsForAThreadStillInARoute(boolean traced) throws Exception {
    // HandlerThreadsTest shows why the stop waits; this shows the gateway's own server counts the
    // threads in its routes, with its handlers as it installs them, traces on or off.
    try (FakeProvider provider = new FakeProvider();
        TraceReceiver receiver = new TraceReceiver();
        ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      Gateway gateway =
          Gateway.openAi(
              provider,
              dataDir,
              traced ? Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint()) : Map.of());
      CountDownLatch rest = new CountDownLatch(1);
      @Nullable CompletableFuture<Void> closing = null;
      try {
        Request note = gateway.nativeUpload(Gateway.TOKEN_A, TestAudio.wav(1_000, 9));
        Request halfSent = note.newBuilder().post(halfThenWait(note.body(), rest)).build();
        threads.submit(() -> gateway.send(halfSent));
        // The route's thread reads the upload and waits for the rest of it.
        Await.until(
            () -> threadsWith("UploadReader.read") == 1, () -> "no thread reading the upload");

        closing = CompletableFuture.runAsync(gateway::close, threads);

        Await.until(
            () -> threadsWith("HandlerThreads.awaitNone") == 1,
            () -> "the stop did not wait for the thread in the route");
      } finally {
        rest.countDown();
        if (closing == null) {
          gateway.close();
        } else {
          closing.get(30, TimeUnit.SECONDS);
        }
      }
    }
  }

  private static int threadsWith(String frame) {
    try {
      return ThreadDump.now().threadsWith(frame);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code body}'s first half, then the rest once {@code rest} opens. */
  private static RequestBody halfThenWait(@Nullable RequestBody body, CountDownLatch rest)
      throws IOException {
    Buffer all = new Buffer();
    java.util.Objects.requireNonNull(body).writeTo(all);
    byte[] bytes = all.readByteArray();
    @Nullable MediaType type = body.contentType();
    return new RequestBody() {
      @Override
      public @Nullable MediaType contentType() {
        return type;
      }

      @Override
      public long contentLength() {
        return bytes.length;
      }

      @Override
      public void writeTo(BufferedSink sink) throws IOException {
        sink.write(bytes, 0, bytes.length / 2);
        sink.flush();
        try {
          rest.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted", e);
        }
        sink.write(bytes, bytes.length / 2, bytes.length - bytes.length / 2);
      }
    };
  }

  private App buildWithEngineView(ServerConfig config, UnaryOperator<SpeechEngine> view) {
    return App.builder(config).engineView(view).build();
  }
}
