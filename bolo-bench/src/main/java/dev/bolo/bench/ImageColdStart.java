package dev.bolo.bench;

import dev.bolo.cli.UnpackedImage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The container image's first seconds, with and without the start-up cache it carries ({@code
 * /app/aot/bolo.aot}, made at build time by {@code deploy/image/train-aot.sh}): the image is
 * unpacked and run as a container engine runs it (its own root file system, runtime, user and
 * entrypoint, with {@code unshare}; the host's network), on the provider stand-in, and measured as
 * {@link ColdStart} measures {@code ./bolo serve}: time to {@code /readyz}, the first {@code
 * --seconds} of load at once, then {@code --warmup} unmeasured seconds and {@code --seconds} warm.
 * "no cache" starts the same entrypoint with {@code JDK_JAVA_OPTIONS=-XX:AOTMode=off}, "warm-up"
 * with {@code BOLO_WARMUP} of {@link ColdStart#WARMUP} (the request path run in memory before the
 * port opens); a run with the cache checks in the JVM's own log that it was used. CPU per request
 * counts the container's whole process tree. Needs root, as a container engine does.
 *
 * <p>Usage: {@code bolo-bench/run ImageColdStart [--image bolo-cli/target/jib-image.tar] [--rounds
 * 3] [--seconds 8] [--warmup 45] [--connections 50] [--note-kb 200] [--heap 512m]} (build the image
 * first: {@code ./mvnw -B -DskipTests -pl bolo-cli -am verify}).
 */
public final class ImageColdStart {

  private static final List<String> VARIANTS =
      List.of("image, cache", "image, no cache", "image, cache + warm-up");

  private ImageColdStart() {}

  public static void main(String[] args) throws Exception {
    List<String> rest = new ArrayList<>(Arrays.asList(args));
    Path tarball = Path.of("bolo-cli/target/jib-image.tar");
    int at = rest.indexOf("--image");
    if (at >= 0) {
      tarball = Path.of(rest.get(at + 1));
      rest.subList(at, at + 2).clear();
    }
    GatewayLoadOptions options = GatewayLoadOptions.parse(rest.toArray(String[]::new));
    try (HarnessRun harness = HarnessRun.start("bolo-image-cold");
        UnpackedImage image = UnpackedImage.unpack(harness.root().resolve(tarball))) {
      Path work = harness.work();
      LoadGenerator load = LoadGenerator.prepare(work, options);
      int providerPort = BenchRun.freePort();
      harness.add(BenchRun.startStandIn(work, providerPort, options.delayMillis()));
      BenchRun.awaitPort(providerPort);
      List<ColdStart.Run> runs =
          ColdStart.rounds(
              options,
              VARIANTS,
              (variant, round) -> once(image, load, options, providerPort, variant, round));
      ColdStart.report(
          harness, options, runs, VARIANTS, "image-cold-start", "\nImage: " + tarball + "\n");
      harness.finished();
    }
  }

  /** Starts the image's {@code serve} once as {@code variant}, measures it and stops it. */
  private static ColdStart.Run once(
      UnpackedImage image,
      LoadGenerator load,
      GatewayLoadOptions options,
      int providerPort,
      String variant,
      int round)
      throws Exception {
    boolean cache = !variant.endsWith("no cache");
    boolean warmUp = variant.endsWith("warm-up");
    String name = "run-" + round + (cache ? "-cache" : "-no-cache") + (warmUp ? "-warm-up" : "");
    String aotLog = "/tmp/" + name + "-aot.log";
    int port = BenchRun.freePort();
    Map<String, String> env = image.env();
    env.putAll(
        BenchRun.gatewayOnStandIn(
            port, providerPort, "/var/lib/bolo/" + name, "bench=" + LoadTargets.TOKEN));
    env.put("BOLO_MAX_BODIES_PER_DEVICE", Integer.toString(options.connections() + 14));
    env.put("BOLO_LOG_FORMAT", "text");
    env.put("BOLO_WARMUP", warmUp ? ColdStart.WARMUP : "0s");
    env.put(
        "JDK_JAVA_OPTIONS",
        "-Xmx" + options.heap() + (cache ? " -Xlog:aot=info:file=" + aotLog : " -XX:AOTMode=off"));
    long started = System.nanoTime();
    UnpackedImage.Run container = image.start(env, image.command());
    try {
      return ColdStart.measureStart(
          load,
          options,
          variant,
          round,
          container.process().pid(),
          port,
          started,
          cache ? image.rootfs().resolve(aotLog.substring(1)) : null);
    } finally {
      // SIGTERM to the JVM, as `docker stop` sends; unshare ends with it.
      container.process().toHandle().children().forEach(ProcessHandle::destroy);
      if (!container.process().waitFor(30, TimeUnit.SECONDS)) {
        container.process().toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
        container.process().destroyForcibly();
      }
    }
  }
}
