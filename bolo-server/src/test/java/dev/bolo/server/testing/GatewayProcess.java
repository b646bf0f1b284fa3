package dev.bolo.server.testing;

import dev.bolo.server.Main;
import dev.bolo.server.config.ServerConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A real gateway in its own JVM, started from the test class path, so a test can kill it the way an
 * operating system does ({@code kill -9}): no shutdown hook, no finished work, no released claim.
 * Not thread safe: one test drives it.
 */
public final class GatewayProcess implements AutoCloseable {

  /** The line the child prints on stdout once it listens, followed by its port. */
  private static final String PORT_LINE = "bolo-port=";

  /** A cold JVM plus the ledger's migration check; generous for a loaded two-core machine. */
  private static final long START_TIMEOUT_SECONDS = 60;

  private static final String PRODUCTION_LOGGING = "-Dlogback.configurationFile=logback.xml";

  private final Process process;
  private final int port;

  private GatewayProcess(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /**
   * Starts a gateway configured by exactly {@code env} (no {@code BOLO_} variable of this JVM leaks
   * in) and waits until it listens.
   *
   * @param log receives the child's stderr (its log), for a failing test's message
   */
  public static GatewayProcess start(Map<String, String> env, Path log) throws IOException {
    return start(env, log, List.of());
  }

  /**
   * The same with the production logging configuration ({@code logback.xml}) instead of the tests'
   * quiet one, for tests of what an operator sees in the log.
   */
  public static GatewayProcess startWithProductionLogging(Map<String, String> env, Path log)
      throws IOException {
    return start(env, log, List.of(PRODUCTION_LOGGING));
  }

  /**
   * The same with a heap of {@code maxHeap} ({@code -Xmx}'s value, {@code 128m}) instead of 256
   * MiB, for tests of what a client can make the gateway hold.
   */
  public static GatewayProcess startWithHeap(Map<String, String> env, Path log, String maxHeap)
      throws IOException {
    return start(env, log, List.of("-Xmx" + maxHeap));
  }

  /**
   * Runs a gateway with the production logging configuration that is expected not to start, and
   * waits for its exit.
   *
   * @param log receives the child's stderr
   * @return its exit code
   */
  public static int runUntilExit(Map<String, String> env, Path log)
      throws IOException, InterruptedException {
    return runUntilExit(env, log, List.of());
  }

  /** {@link #runUntilExit(Map, Path)} with more JVM options, e.g. another models folder. */
  public static int runUntilExit(Map<String, String> env, Path log, List<String> jvmOptions)
      throws IOException, InterruptedException {
    List<String> options = new java.util.ArrayList<>(List.of(PRODUCTION_LOGGING));
    options.addAll(jvmOptions);
    Process process = builder(env, log, options).start();
    if (!process.waitFor(START_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("gateway process still running; its log:\n" + Files.readString(log));
    }
    return process.exitValue();
  }

  private static GatewayProcess start(Map<String, String> env, Path log, List<String> jvmOptions)
      throws IOException {
    Process process = builder(env, log, jvmOptions).start();
    CompletableFuture<Integer> port = new CompletableFuture<>();
    Thread.ofPlatform()
        .daemon()
        .name("gateway-process-stdout")
        .start(() -> readPort(process, port));
    try {
      return new GatewayProcess(process, port.get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS));
    } catch (InterruptedException | ExecutionException | TimeoutException e) {
      process.destroyForcibly();
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new IllegalStateException(
          "gateway process did not start; its log:\n" + Files.readString(log), e);
    }
  }

  private static ProcessBuilder builder(
      Map<String, String> env, Path log, List<String> jvmOptions) {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> command = new java.util.ArrayList<>();
    command.add(java.toString());
    command.addAll(
        List.of(
            "--enable-native-access=ALL-UNNAMED",
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            "-Xmx256m"));
    // The offline engine's weights where this JVM finds them (the build names the folder).
    String models = System.getProperty("bolo.models");
    if (models != null) {
      command.add("-Dbolo.models=" + models);
    }
    // After the defaults: of two -Xmx, of two -D, the JVM takes the last.
    command.addAll(jvmOptions);
    command.addAll(
        List.of("-cp", System.getProperty("java.class.path"), GatewayProcess.class.getName()));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().keySet().removeIf(name -> name.startsWith("BOLO_"));
    builder.environment().putAll(env);
    builder.redirectError(log.toFile());
    return builder;
  }

  private static void readPort(Process process, CompletableFuture<Integer> port) {
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null) {
        if (line.startsWith(PORT_LINE)) {
          port.complete(Integer.parseInt(line.substring(PORT_LINE.length())));
        }
      }
      port.completeExceptionally(new IllegalStateException("exited: " + process.waitFor()));
    } catch (IOException | RuntimeException e) {
      port.completeExceptionally(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      port.completeExceptionally(e);
    }
  }

  public String url(String path) {
    return "http://127.0.0.1:" + port + path;
  }

  /** Kills the process with SIGKILL and waits until it is gone. */
  public void kill() {
    process.destroyForcibly();
    try {
      if (!process.waitFor(START_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        throw new IllegalStateException("gateway process survived SIGKILL: " + process.pid());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while killing " + process.pid(), e);
    }
  }

  public int port() {
    return port;
  }

  /** The process id, for tools that inspect the child ({@code jcmd}). */
  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** Sends SIGTERM, as an orchestrator stopping the process does; returns at once. */
  public void terminate() {
    // SIGTERM on Linux. Through the handle, not Process.destroy(): that also closes the child's
    // stdin, which the child reads as its parent having gone.
    process.toHandle().destroy();
  }

  /**
   * Waits for the process to exit.
   *
   * @return its exit code
   * @throws AssertionError when it is still running after {@code timeout}
   */
  public int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("gateway process still running after " + timeout);
    }
    return process.exitValue();
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      kill();
    }
  }

  /**
   * The child's entry point: a gateway configured from the environment, run as {@code bolo serve}
   * runs it (SIGTERM drains it and exits 0); prints its port once it listens, and exits when stdin
   * closes (the parent JVM ended without stopping it).
   */
  public static void main(String[] args) throws Exception {
    Thread.ofPlatform()
        .daemon()
        .name("parent-watch")
        .start(
            () -> {
              try {
                while (System.in.read() != -1) {
                  // Nothing is sent on stdin; end of input means the parent is gone.
                }
              } catch (IOException e) {
                // Same: the parent is gone.
              }
              Runtime.getRuntime().halt(3);
            });
    int code =
        Main.serve(
            ServerConfig.fromEnvironment(),
            app -> {
              System.out.println(PORT_LINE + app.port());
              System.out.flush();
            });
    System.exit(code);
  }
}
