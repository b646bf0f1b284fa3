package dev.bolo.bench;

import dev.bolo.testkit.Directories;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One run of a harness that starts processes (stand-in, gateway, proxies): the checkout it runs in,
 * a fresh work folder for their files, and the processes themselves, stopped (the last started
 * first) when the run closes, and destroyed too if the JVM exits before (say, on Ctrl-C). Processes
 * may be added from any thread. The work folder (a gateway's data, the notes sent: over 100 MB a
 * run) is removed when the run closes after {@link #finished()}; a run that failed keeps it for its
 * logs, and says where.
 */
final class HarnessRun implements AutoCloseable {

  private final Path root;
  private final Path work;
  private final List<Process> processes = new CopyOnWriteArrayList<>();
  private volatile boolean finished;

  private HarnessRun(Path root, Path work) {
    this.root = root;
    this.work = work;
  }

  /**
   * A run in the checkout given by {@code -Dbolo.root} (set by {@code bolo-bench/run}; the current
   * folder without it), with a new temporary work folder named after {@code prefix}.
   */
  static HarnessRun start(String prefix) throws IOException {
    HarnessRun run = new HarnessRun(checkout(), Files.createTempDirectory(prefix));
    Runtime.getRuntime().addShutdownHook(new Thread(() -> run.processes.forEach(Process::destroy)));
    return run;
  }

  /** The checkout given by {@code -Dbolo.root} (the current folder without it). */
  static Path checkout() {
    return Path.of(System.getProperty("bolo.root", ".")).toAbsolutePath().normalize();
  }

  /** The checkout: where {@code ./bolo} is and the results are written. */
  Path root() {
    return root;
  }

  /** This run's own folder: logs, configuration and data of the processes it starts. */
  Path work() {
    return work;
  }

  /** Adds a started process and returns it. */
  Process add(Process process) {
    processes.add(process);
    return process;
  }

  /** Marks the run as done: closing it then removes its work folder. */
  void finished() {
    finished = true;
  }

  /**
   * Stops every process, the last started first, each forcibly after 10 s; then removes the work
   * folder of a finished run.
   */
  @Override
  public void close() throws InterruptedException, IOException {
    BenchRun.stopAll(processes);
    if (!finished) {
      System.out.println("the processes' logs are kept in " + work);
      return;
    }
    Directories.deleteTree(work);
  }
}
