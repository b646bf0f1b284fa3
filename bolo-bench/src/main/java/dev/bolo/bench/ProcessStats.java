package dev.bolo.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What a measured server process has used so far, read from Linux's {@code /proc}. */
final class ProcessStats {

  private ProcessStats() {}

  /** User plus system CPU time of a process so far, from /proc (clock ticks of 10 ms). */
  static long cpuMillis(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    // Fields after the command name, which is in parentheses and may hold spaces.
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * 10;
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
