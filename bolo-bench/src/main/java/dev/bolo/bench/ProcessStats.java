package dev.bolo.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** What a measured server process has used so far, read from Linux's {@code /proc}. */
final class ProcessStats {

  private ProcessStats() {}

  /** User plus system CPU time of a process so far, from /proc (clock ticks of 10 ms). */
  static long cpuMillis(long pid) throws IOException {
    String[] fields = statFields("/proc/" + pid + "/stat");
    return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * 10;
  }

  /**
   * The CPU time of a process and every process it started that still runs (nginx's workers), in
   * ms; a process that ended meanwhile counts as 0.
   */
  static long treeCpuMillis(long pid) throws IOException {
    long total = cpuMillis(pid);
    for (ProcessHandle child :
        ProcessHandle.of(pid).map(p -> p.descendants().toList()).orElse(List.of())) {
      try {
        total += cpuMillis(child.pid());
      } catch (IOException gone) {
        // Ended between the listing and the reading.
      }
    }
    return total;
  }

  /**
   * The threads of a process and of the processes it started, each by its id with its name and its
   * CPU time so far in ns ({@code schedstat}; Linux keeps a thread's first 15 characters of name);
   * a thread or process that ended meanwhile is not counted. Immutable.
   */
  record ThreadTimes(Map<String, Named> threads) {

    /** One thread: its name as read, and its CPU time so far in ns. */
    record Named(String name, long nanos) {}

    /**
     * The CPU each thread spent since {@code before}, in ns, by its name now with its digits left
     * out ({@code HttpClient-1-Worker-0} counts as {@code HttpClient--Worker-}). Read by thread id:
     * a thread renamed in between (OkHttp's task runner takes the name of each task it runs) counts
     * what it spent since under its new name, not its whole life.
     */
    Map<String, Long> spentSince(ThreadTimes before) {
      Map<String, Long> byName = new TreeMap<>();
      threads.forEach(
          (id, now) -> {
            Named was = before.threads().get(id);
            byName.merge(
                now.name().replaceAll("\\d", ""),
                now.nanos() - (was == null ? 0 : was.nanos()),
                Long::sum);
          });
      return byName;
    }
  }

  /** The threads of process {@code pid} and of the processes it started, with their CPU so far. */
  static ThreadTimes threads(long pid) throws IOException {
    Map<String, ThreadTimes.Named> threads = new HashMap<>();
    List<Long> pids = new ArrayList<>();
    pids.add(pid);
    ProcessHandle.of(pid).ifPresent(p -> p.descendants().forEach(c -> pids.add(c.pid())));
    for (long process : pids) {
      try (var tasks = Files.list(Path.of("/proc/" + process + "/task"))) {
        for (Path task : tasks.toList()) {
          try {
            String name = Files.readString(task.resolve("comm")).strip();
            String schedstat = Files.readString(task.resolve("schedstat")).strip();
            long nanos = Long.parseLong(schedstat.substring(0, schedstat.indexOf(' ')));
            threads.put(task.getFileName().toString(), new ThreadTimes.Named(name, nanos));
          } catch (IOException ended) {
            // The thread ended between the listing and the reading.
          }
        }
      } catch (IOException ended) {
        // The process ended between the listing and the reading.
      }
    }
    return new ThreadTimes(Map.copyOf(threads));
  }

  /** This JVM's own CPU time so far, in ms. */
  static long selfCpuMillis() throws IOException {
    return cpuMillis(ProcessHandle.current().pid());
  }

  /**
   * The CPU time of this JVM's child processes that ended and were waited for (a finished {@code
   * wrk}), in ms: Linux adds a child's time to its parent's once it is reaped.
   */
  static long endedChildrenCpuMillis() throws IOException {
    String[] fields = statFields("/proc/self/stat");
    return (Long.parseLong(fields[13]) + Long.parseLong(fields[14])) * 10;
  }

  /**
   * The fields of a stat file after the command name, which is in parentheses and may hold spaces.
   */
  private static String[] statFields(String file) throws IOException {
    String stat = Files.readString(Path.of(file));
    return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
  }

  /** The process's peak resident set ({@code VmHWM}), in MB; -1 when /proc does not say. */
  static long peakRssMb(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmHWM:")) {
        return Long.parseLong(line.replaceAll("\\D", "")) / 1024;
      }
    }
    return -1;
  }

  /** How many files (sockets included) the process holds open. */
  static long openFiles(long pid) throws IOException {
    try (var files = Files.list(Path.of("/proc/" + pid + "/fd"))) {
      return files.count();
    }
  }
}
