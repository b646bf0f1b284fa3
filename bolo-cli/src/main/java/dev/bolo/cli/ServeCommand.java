package dev.bolo.cli;

import dev.bolo.server.App;
import dev.bolo.server.ServerConfig;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;

/** {@code bolo serve}: runs the gateway with the environment's configuration until stopped. */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the gateway. Configured by environment variables (see the README):",
      "BOLO_PORT, BOLO_HOST, BOLO_ENGINE, BOLO_DEVICE_TOKENS, BOLO_IDEMPOTENCY_TTL, …"
    })
final class ServeCommand implements Callable<Integer> {

  @Override
  public Integer call() throws InterruptedException {
    ServerConfig config;
    try {
      config = ServerConfig.fromEnvironment();
    } catch (IllegalArgumentException e) {
      System.err.println("bolo serve: " + e.getMessage());
      return 2;
    }
    App app = App.create(config).start();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  app.close();
                  stopped.countDown();
                },
                "bolo-shutdown"));
    stopped.await();
    return 0;
  }
}
