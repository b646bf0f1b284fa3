package dev.bolo.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.bolo.server.config.ServerConfig;
import dev.bolo.server.engine.SpeechEngine;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The composition root gives back what it took when a start fails, and a drain always ends. */
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

  private App buildWithEngineView(ServerConfig config, UnaryOperator<SpeechEngine> view) {
    return App.builder(config).engineView(view).build();
  }
}
