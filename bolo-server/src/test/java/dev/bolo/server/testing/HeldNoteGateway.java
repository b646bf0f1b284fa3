package dev.bolo.server.testing;

import dev.bolo.server.App;
import dev.bolo.server.config.ServerConfig;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.Transcript;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A gateway (device {@link Gateway#TOKEN_A}) whose engine reports that it has recognised {@code
 * doneMillis} of a note, then holds the note until {@link #release()}, then answers {@code text}:
 * running work with known progress, for the answers that report it.
 */
public final class HeldNoteGateway implements AutoCloseable {

  private final CountDownLatch reported = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);
  private final App app;

  public HeldNoteGateway(Path dataDir, long doneMillis, String text) {
    Map<String, String> env =
        Map.of(
            "BOLO_PORT", "0",
            "BOLO_ENGINE", "openai",
            "BOLO_OPENAI_BASE_URL", "http://127.0.0.1:9/v1",
            "BOLO_OPENAI_API_KEY", "sk-test",
            "BOLO_DATA_DIR", dataDir.toString(),
            "BOLO_DEVICE_TOKENS", "alpha=" + Gateway.TOKEN_A);
    app =
        App.builder(ServerConfig.fromMap(env))
            .engineView(
                real ->
                    new AnsweringEngine(
                        real,
                        request -> {
                          request.progress().doneUpTo(doneMillis);
                          reported.countDown();
                          awaitQuietly(release);
                          return new EngineResult.Transcribed(Transcript.plain(text));
                        }))
            .build()
            .start();
  }

  /** The gateway's base URL, without a trailing slash. */
  public String base() {
    return "http://127.0.0.1:" + app.port();
  }

  /** Whether the engine reported its progress within 10 s. */
  public boolean reported() throws InterruptedException {
    return reported.await(10, TimeUnit.SECONDS);
  }

  /** Lets the held note finish. */
  public void release() {
    release.countDown();
  }

  @Override
  public void close() {
    release.countDown();
    app.close();
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
