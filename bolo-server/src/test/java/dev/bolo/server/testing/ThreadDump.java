package dev.bolo.server.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Every thread of this JVM, virtual ones included, with its stack (the JDK's JSON thread dump, as
 * {@code jcmd Thread.dump_to_file -format=json} writes it): what a request keeps parked.
 */
public final class ThreadDump {

  private final List<List<String>> stacks;

  private ThreadDump(List<List<String>> stacks) {
    this.stacks = stacks;
  }

  /** The threads now. */
  public static ThreadDump now() throws IOException {
    Path folder = Files.createTempDirectory("bolo-threads-");
    Path file = folder.resolve("threads.json");
    try {
      ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
          .dumpThreads(file.toString(), HotSpotDiagnosticMXBean.ThreadDumpFormat.JSON);
      JsonNode dump = new ObjectMapper().readTree(file.toFile());
      List<List<String>> stacks = new ArrayList<>();
      for (JsonNode container : dump.path("threadDump").path("threadContainers")) {
        for (JsonNode thread : container.path("threads")) {
          List<String> frames = new ArrayList<>();
          thread.path("stack").forEach(frame -> frames.add(frame.asText()));
          stacks.add(frames);
        }
      }
      return new ThreadDump(stacks);
    } finally {
      Files.deleteIfExists(file);
      Files.delete(folder);
    }
  }

  /**
   * How many threads had frames containing each of {@code texts} (classes or methods) on their
   * stack.
   */
  public int threadsWith(String... texts) {
    return (int)
        stacks.stream()
            .filter(
                frames ->
                    java.util.Arrays.stream(texts)
                        .allMatch(text -> frames.stream().anyMatch(f -> f.contains(text))))
            .count();
  }

  /** How many threads had a frame containing {@code text} (a class or a method) on their stack. */
  public int threadsIn(String text) {
    return (int)
        stacks.stream().filter(frames -> frames.stream().anyMatch(f -> f.contains(text))).count();
  }
}
