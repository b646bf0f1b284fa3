package dev.bolo.server.layout;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every class docs/architecture.md names exists: a newcomer follows a note through the classes the
 * doc names, so a class renamed or deleted must leave the doc with it (it once named {@code
 * Outcome} and {@code Transcript} long after both had gone).
 */
class ArchitectureDocsTest {

  /** A type's name in code font, perhaps qualified ({@code UploadReader.Bounds}) or called. */
  private static final Pattern NAMED =
      Pattern.compile(
          "`([A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*(?:\\.[A-Z][A-Za-z0-9]+)*)(?:[.#(][^`]*)?`");

  private static final Pattern DECLARED =
      Pattern.compile("\\b(?:class|interface|enum|record)\\s+([A-Z]\\w*)");

  /** The gateway's sources and the modules it is built on, with its tests. */
  private static final List<Path> SOURCES =
      List.of(
          Path.of("src"),
          Path.of("..", "bolo-decode", "src", "main"),
          Path.of("..", "bolo-audio", "src", "main"));

  private static Set<String> declared() throws IOException {
    Set<String> types = new TreeSet<>();
    for (Path root : SOURCES) {
      try (Stream<Path> files = Files.walk(root)) {
        for (Path file : files.filter(p -> p.toString().endsWith(".java")).toList()) {
          Matcher m = DECLARED.matcher(Files.readString(file));
          while (m.find()) {
            types.add(m.group(1));
          }
        }
      }
    }
    assertThat(types).contains("App", "PcmDecoder", "ArchitectureTest");
    return types;
  }

  @Test
  void everyClassTheArchitectureDocNamesExists() throws IOException {
    Set<String> declared = declared();
    Set<String> named = new TreeSet<>();
    Matcher m = NAMED.matcher(Files.readString(Path.of("..", "docs", "architecture.md")));
    while (m.find()) {
      named.add(m.group(1));
    }
    assertThat(named).hasSizeGreaterThan(100);

    assertThat(named)
        .as("names in docs/architecture.md that no class of the gateway declares")
        .allSatisfy(name -> assertThat(declared).containsAll(List.of(name.split("\\."))));
  }
}
