package dev.bolo.cli;

import dev.bolo.server.Main;
import dev.bolo.server.ServerConfig;
import java.util.concurrent.Callable;
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
    } catch (ServerConfig.ConfigException e) {
      System.err.println("bolo serve: " + e.getMessage());
      return 2;
    }
    return Main.serve(config, app -> {});
  }
}
