package dev.bolo.testkit;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Processes that burn a core each while a test runs, so a test can show that what it measures does
 * not depend on the machine being idle: the "machine busy with other work" of a real deployment.
 * They are separate processes (a shell loop), so the JVM under test competes for the CPU as it
 * would with anything else on the host.
 */
public final class CpuHogs implements AutoCloseable {

  private final List<Process> hogs = new ArrayList<>();

  private CpuHogs() {}

  /** Starts {@code count} hogs; {@link #close()} stops them. */
  public static CpuHogs start(int count) throws IOException {
    CpuHogs started = new CpuHogs();
    try {
      for (int i = 0; i < count; i++) {
        started.hogs.add(
            new ProcessBuilder("sh", "-c", "while :; do :; done")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start());
      }
    } catch (IOException e) {
      started.close();
      throw e;
    }
    return started;
  }

  /** Whether every hog still runs. */
  public boolean running() {
    return hogs.stream().allMatch(Process::isAlive);
  }

  @Override
  public void close() {
    for (Process hog : hogs) {
      hog.destroyForcibly();
    }
    for (Process hog : hogs) {
      try {
        hog.waitFor(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
