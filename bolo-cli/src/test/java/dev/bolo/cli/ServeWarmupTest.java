package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.testkit.Await;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bolo serve} with {@code BOLO_WARMUP}: its own process runs the request path on a stand-in
 * before the port opens (the port refuses meanwhile, so a balancer sends nothing), then serves; a
 * mistake the start finds is reported before the warm-up, not after it.
 */
class ServeWarmupTest {

  @TempDir Path dir;

  @Test
  void theWarmUpRunsBeforeThePortOpensAndThenTheGatewayServes() throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    Path err = dir.resolve("err.log");
    Process serve = serve(port, "3s");
    try {
      HttpClient http = HttpClient.newHttpClient();
      HttpRequest ready =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/healthz")).build();
      AtomicBoolean refusedDuringWarmUp = new AtomicBoolean();
      // The start of another process is what we wait for: a bound on a hang, not on its speed.
      Await.until(
          Duration.ofSeconds(120),
          () -> {
            assertThat(serve.isAlive()).as(() -> read(err)).isTrue();
            try {
              return http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
            } catch (IOException notListening) {
              if (!read(err).contains("warm-up done")) {
                refusedDuringWarmUp.set(true);
              }
              return false;
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              return false;
            }
          },
          () -> read(err));
      String log = Files.readString(err);
      assertThat(refusedDuringWarmUp).as("the port refused while warming up").isTrue();
      assertThat(log).contains("warming the request path up for 3 s");
      assertThat(log).containsPattern("warm-up done \\([1-9][0-9]* notes on a stand-in\\)");
    } finally {
      serve.destroy();
      assertThat(serve.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void aTakenPortIsReportedAtOnceNotAfterTheWarmUp() throws Exception {
    try (ServerSocket taken = new ServerSocket(0)) {
      // A warm-up of ten minutes: a port reported after it would outlast the wait below.
      Process serve = serve(taken.getLocalPort(), "600s");
      boolean ended = serve.waitFor(120, TimeUnit.SECONDS);
      if (!ended) {
        serve.destroyForcibly();
      }
      assertThat(ended).as("ended before the warm-up could have").isTrue();
      assertThat(serve.exitValue()).isEqualTo(2);
      // Reported before the warm-up began: not a word of it.
      assertThat(Files.readString(dir.resolve("err.log"))).doesNotContain("warming");
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      return e.toString();
    }
  }

  /** {@code bolo serve} in its own JVM on {@code port}, its error output in {@code err.log}. */
  private Process serve(int port, String warmup) throws IOException {
    ProcessBuilder builder =
        new ProcessBuilder(
                List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx256m",
                    "-cp",
                    System.getProperty("java.class.path"),
                    "dev.bolo.cli.Main",
                    "serve"))
            .redirectError(dir.resolve("err.log").toFile())
            .redirectOutput(dir.resolve("out.log").toFile());
    builder.environment().put("BOLO_WARMUP", warmup);
    builder.environment().put("BOLO_ENGINE", "openai");
    builder.environment().put("BOLO_OPENAI_API_KEY", "sk-test");
    builder.environment().put("BOLO_OPENAI_BASE_URL", "http://127.0.0.1:9/v1");
    builder.environment().put("BOLO_PORT", Integer.toString(port));
    builder.environment().put("BOLO_DATA_DIR", dir.resolve("data").toString());
    return builder.start();
  }
}
