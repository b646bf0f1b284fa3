package dev.bolo.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A container image tarball unpacked as a container engine would run it, without one: its layers in
 * order in a root file system, and processes started there with {@code unshare} (own mount and PID
 * namespaces, the image as root directory, the image's user, environment and working directory; the
 * host's network, as {@code docker run -p} would give). Needs root, as a container engine does: it
 * makes device nodes and switches to the image's user.
 */
public final class UnpackedImage implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path work;
  private final Path rootfs;
  private final JsonNode config;

  private UnpackedImage(Path work, Path rootfs, JsonNode config) {
    this.work = work;
    this.rootfs = rootfs;
    this.config = config;
  }

  /** Unpacks the Docker-format tarball {@code image} into a new folder beside it. */
  public static UnpackedImage unpack(Path image) throws Exception {
    if (!run(List.of("id", "-u")).strip().equals("0")) {
      throw new IllegalStateException(
          "running the image needs root, as a container engine does (device nodes, switching to"
              + " the image's user); build without the image with -Dbolo.image.skip=true");
    }
    Path work = Files.createTempDirectory(image.getParent(), "image-run-");
    Path archive = Files.createDirectories(work.resolve("archive"));
    Path rootfs = Files.createDirectories(work.resolve("rootfs"));
    run(List.of("tar", "-xf", image.toString(), "-C", archive.toString()));
    JsonNode manifest = JSON.readTree(archive.resolve("manifest.json").toFile()).get(0);
    JsonNode config = JSON.readTree(archive.resolve(manifest.get("Config").asText()).toFile());
    UnpackedImage unpacked = new UnpackedImage(work, rootfs, config);
    for (JsonNode layer : manifest.get("Layers")) {
      unpacked.unpackLayer(archive.resolve(layer.asText()));
    }
    // What an engine provides at run time: /proc (mounted by unshare) and the device nodes.
    Files.createDirectories(rootfs.resolve("proc"));
    Files.createDirectories(rootfs.resolve("dev"));
    for (String[] node :
        List.of(
            new String[] {"null", "3"},
            new String[] {"zero", "5"},
            new String[] {"random", "8"},
            new String[] {"urandom", "9"})) {
      run(
          List.of(
              "mknod",
              "-m",
              "666",
              rootfs.resolve("dev/" + node[0]).toString(),
              "c",
              "1",
              node[1]));
    }
    return unpacked;
  }

  /** The root file system. */
  public Path rootfs() {
    return rootfs;
  }

  /** A scratch folder outside the root file system, removed with it. */
  public Path work() {
    return work;
  }

  /** The image's configuration: its {@code config} object (user, environment, health check). */
  public JsonNode container() {
    return config.get("config");
  }

  /** The image's entrypoint. */
  public List<String> entrypoint() {
    List<String> entrypoint = new ArrayList<>();
    config.get("config").get("Entrypoint").forEach(part -> entrypoint.add(part.asText()));
    return entrypoint;
  }

  /** The image's environment, as the engine passes it to the entrypoint. */
  public Map<String, String> env() {
    Map<String, String> env = new LinkedHashMap<>();
    for (JsonNode entry : config.get("config").get("Env")) {
      String[] pair = entry.asText().split("=", 2);
      env.put(pair[0], pair[1]);
    }
    return env;
  }

  /** The entrypoint followed by {@code args} (the image's command replaced, as docker run does). */
  public Run start(Map<String, String> env, List<String> args) throws IOException {
    List<String> command = new ArrayList<>(entrypoint());
    command.addAll(args);
    return startInContainer(env, command);
  }

  /** The image's command. */
  public List<String> command() {
    List<String> args = new ArrayList<>();
    config.get("config").get("Cmd").forEach(part -> args.add(part.asText()));
    return args;
  }

  /** The image's health check, as {@code docker exec} would run it. */
  public List<String> healthCheck() {
    List<String> test = new ArrayList<>();
    config.get("config").get("Healthcheck").get("Test").forEach(part -> test.add(part.asText()));
    if (!test.remove(0).equals("CMD")) {
      throw new IllegalStateException("a health check that is not CMD: " + test);
    }
    return test;
  }

  /** Runs {@code command} inside the image's root, as its user, in its working directory. */
  private Run startInContainer(Map<String, String> env, List<String> command) throws IOException {
    JsonNode container = config.get("config");
    String[] user = container.get("User").asText().split(":", 2);
    List<String> unshare =
        new ArrayList<>(
            List.of(
                "/usr/bin/unshare",
                "--mount",
                "--pid",
                "--fork",
                "--kill-child",
                "--mount-proc=/proc",
                "--root=" + rootfs,
                "--wd=" + container.get("WorkingDir").asText(),
                "--setgid=" + user[1],
                "--setuid=" + user[0],
                "--"));
    unshare.addAll(command);
    return launch(env, unshare);
  }

  private Run launch(Map<String, String> env, List<String> command) throws IOException {
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().clear();
    builder.environment().putAll(env);
    // Output goes to files, so a chatty process never blocks on a full pipe.
    String name = "run-" + System.nanoTime();
    Path stdout = work.resolve(name + ".out");
    Path stderr = work.resolve(name + ".err");
    builder.redirectOutput(stdout.toFile());
    builder.redirectError(stderr.toFile());
    return new Run(builder.start(), stdout, stderr);
  }

  /**
   * Runs {@code command} in the running container of {@code gateway}, as {@code docker exec} (and
   * Docker's health check) does: in its mount and PID namespaces, root and working directory, as
   * the image's user. Its own PID namespace would make it PID 1 too, and two JVMs of one user with
   * the same PID share one performance-data file in /tmp.
   */
  public Run exec(ProcessHandle gateway, Map<String, String> env, List<String> command)
      throws IOException {
    String[] user = config.get("config").get("User").asText().split(":", 2);
    List<String> nsenter =
        new ArrayList<>(
            List.of(
                "/usr/bin/nsenter",
                "--target=" + gateway.pid(),
                "--mount",
                "--pid",
                "--root",
                "--wd",
                "--setgid=" + user[1],
                "--setuid=" + user[0],
                "--"));
    nsenter.addAll(command);
    return launch(env, nsenter);
  }

  /** A process started in the image, with the files its output goes to. */
  public record Run(Process process, Path stdout, Path stderr) {
    public String out() throws IOException {
      return Files.readString(stdout);
    }

    public String err() throws IOException {
      return Files.readString(stderr);
    }
  }

  private void unpackLayer(Path layer) throws IOException, InterruptedException {
    run(List.of("tar", "-xzf", layer.toString(), "-C", rootfs.toString(), "--numeric-owner"));
    // OCI whiteouts: a layer deletes a lower file with an empty ".wh.NAME" beside it.
    try (Stream<Path> files = Files.walk(rootfs)) {
      for (Path marker :
          files.filter(f -> f.getFileName().toString().startsWith(".wh.")).toList()) {
        String name = marker.getFileName().toString().substring(4);
        // Jib writes no whiteouts; an opaque directory would need more than this loop does.
        if (name.equals(".wh..opq")) {
          throw new IllegalStateException("opaque whiteout in " + layer);
        }
        run(List.of("rm", "-rf", marker.resolveSibling(name).toString()));
        Files.delete(marker);
      }
    }
  }

  static String run(List<String> command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (process.waitFor() != 0) {
      throw new IOException(command + " exited " + process.exitValue() + ": " + output);
    }
    return output;
  }

  @Override
  public void close() throws IOException {
    if (!Files.isDirectory(work)) {
      return;
    }
    try (Stream<Path> files = Files.walk(work)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(file);
      }
    }
  }
}
