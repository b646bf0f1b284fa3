package dev.bolo.server.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Installs an npm project of {@code src/test/node} (its {@code package.json} and lock file) into
 * {@code target/} once, for tests that use a package from npm. npm missing or the registry
 * unreachable fails the test with the reason; it never skips.
 */
public final class NpmPackages {

  private NpmPackages() {}

  /**
   * The installed copy of {@code src/test/node/NAME}, with its {@code node_modules}.
   *
   * @param probe a file of the installed packages that proves a previous install finished
   */
  public static Path install(String name, String probe) throws InterruptedException {
    Path source = Path.of("src", "test", "node", name);
    Path home = Path.of("target", "node-" + name);
    try (FolderLock held = FolderLock.hold(home)) {
      for (String file : List.of("package.json", "package-lock.json")) {
        FolderLock.copyIfChanged(source.resolve(file), home.resolve(file));
      }
      if (Files.exists(home.resolve(probe))) {
        return home;
      }
      Process npm =
          new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
              .directory(home.toFile())
              .redirectErrorStream(true)
              .start();
      byte[] output = npm.getInputStream().readAllBytes();
      if (!npm.waitFor(5, TimeUnit.MINUTES)) {
        npm.destroyForcibly();
        throw new AssertionError("npm ci in " + home + " did not finish in 5 minutes");
      }
      if (npm.exitValue() != 0) {
        throw new AssertionError(
            "npm ci in "
                + home
                + " exited "
                + npm.exitValue()
                + ": "
                + new String(output, StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new AssertionError(
          "npm could not install "
              + source
              + " (is npm installed and the npm registry reachable? .ci/run installs npm): "
              + e.getMessage(),
          e);
    }
    return home;
  }
}
