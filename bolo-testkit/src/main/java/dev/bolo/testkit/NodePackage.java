package dev.bolo.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * An npm package a test uses, installed from its lock file ({@code npm ci}) once: a test's own
 * package (its {@code package.json}, lock file and scripts copied from {@code src/test/<folder>}
 * into {@code target/<folder>}, {@link #install}), or a package of the repository installed where
 * it is ({@link #installInPlace}: bolo-client-js and its dev dependencies). Runs its scripts with
 * Node.js. Fails, saying what to install, when Node.js or npm is missing or the registry cannot be
 * reached: never a silent skip.
 */
public final class NodePackage {

  private static final int MIN_NODE_MAJOR = 18;

  private final Path home;

  private NodePackage(Path home) {
    this.home = home;
  }

  /**
   * Installs the package in {@code src/test/<folder>} (its package.json, package-lock.json and
   * {@code files}) unless {@code marker} (a path under node_modules) already exists.
   */
  public static NodePackage install(String folder, String marker, String... files)
      throws IOException, InterruptedException {
    requireNode();
    Path source = Path.of("src", "test", folder);
    Path home = Path.of("target", folder);
    // A module's tests run in two JVMs at once: one installs while the other waits, and a script
    // the other is running is never replaced under it.
    try (FolderLock held = FolderLock.hold(home)) {
      for (String file : concat(List.of("package.json", "package-lock.json"), files)) {
        FolderLock.copyIfChanged(source.resolve(file), home.resolve(file));
      }
      return installInPlace(home, marker);
    }
  }

  /**
   * Installs the package in {@code folder} where it is, from its lock file, unless every one of
   * {@code markers} (paths under node_modules) already exists.
   */
  public static NodePackage installInPlace(Path folder, String... markers)
      throws IOException, InterruptedException {
    requireNode();
    boolean installed = true;
    for (String marker : markers) {
      installed &= Files.exists(folder.resolve("node_modules").resolve(marker));
    }
    if (!installed) {
      try {
        output(
            new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"), folder);
      } catch (IOException e) {
        throw new AssertionError(
            "npm could not install "
                + folder
                + " (is npm installed and the npm registry reachable? .ci/run installs npm): "
                + e.getMessage(),
            e);
      }
    }
    return new NodePackage(folder);
  }

  /** A file of the installed package, such as {@code node_modules/axe-core/axe.min.js}. */
  public Path path(String relative) {
    return home.resolve(relative);
  }

  private static List<String> concat(List<String> first, String[] more) {
    java.util.ArrayList<String> all = new java.util.ArrayList<>(first);
    all.addAll(List.of(more));
    return all;
  }

  /**
   * Runs {@code node script} in the package's folder with {@code env}; returns its standard output
   * and fails with its standard error when it exits non-zero or outlives {@code timeout}.
   */
  public String run(String script, Map<String, String> env, Duration timeout, Path scratch)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile(scratch, "node-out-", ".txt");
    Path err = Files.createTempFile(scratch, "node-err-", ".txt");
    ProcessBuilder node =
        new ProcessBuilder("node", script)
            .directory(home.toFile())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    node.environment().putAll(env);
    Process process = node.start();
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new AssertionError(
          "node " + script + " did not finish within " + timeout + ": " + Files.readString(err));
    }
    if (process.exitValue() != 0) {
      throw new AssertionError(
          "node " + script + " exited " + process.exitValue() + ": " + Files.readString(err));
    }
    return Files.readString(out, StandardCharsets.UTF_8);
  }

  /**
   * Starts {@code node script} in the package's folder with {@code env}, for a script that serves
   * while the test runs (a receiver): its standard output is the caller's to read, its standard
   * error goes to {@code scratch}. The caller ends it ({@link Process#destroyForcibly}) when done.
   */
  public Process start(String script, Map<String, String> env, Path scratch) throws IOException {
    Path err = Files.createTempFile(scratch, "node-err-", ".txt");
    ProcessBuilder node =
        new ProcessBuilder("node", script).directory(home.toFile()).redirectError(err.toFile());
    node.environment().putAll(env);
    return node.start();
  }

  private static void requireNode() throws InterruptedException {
    String version;
    try {
      version = output(new ProcessBuilder("node", "--version"), Path.of(".")).trim();
    } catch (IOException e) {
      throw new AssertionError(
          "Node.js is not on the PATH; install Node.js "
              + MIN_NODE_MAJOR
              + "+ with npm (Debian: apt-get install nodejs npm; .ci/run does this)",
          e);
    }
    int major = Integer.parseInt(version.replaceFirst("^v", "").split("\\.")[0]);
    if (major < MIN_NODE_MAJOR) {
      throw new AssertionError(
          "Node.js " + version + " is too old; install " + MIN_NODE_MAJOR + "+");
    }
  }

  private static String output(ProcessBuilder command, Path directory)
      throws IOException, InterruptedException {
    Process process = command.directory(directory.toFile()).redirectErrorStream(true).start();
    byte[] out = process.getInputStream().readAllBytes();
    if (!process.waitFor(5, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new IOException(String.join(" ", command.command()) + " did not finish in 5 minutes");
    }
    String text = new String(out, StandardCharsets.UTF_8);
    if (process.exitValue() != 0) {
      throw new IOException(
          String.join(" ", command.command()) + " exited " + process.exitValue() + ": " + text);
    }
    return text;
  }
}
