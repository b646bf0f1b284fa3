package dev.bolo.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The one list of variables that {@code bolo serve --help} prints is complete and documented. */
class ConfigVariablesTest {

  private static final Pattern VARIABLE = Pattern.compile("\"(BOLO_[A-Z0-9_]+)\"");

  private static Set<String> listed() {
    return ConfigVariables.ALL.stream()
        .map(ConfigVariables.Variable::name)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  @Test
  void everyVariableTheServerCodeReadsIsListed() throws Exception {
    Set<String> read = new TreeSet<>();
    try (Stream<Path> sources = Files.walk(Path.of("src", "main", "java"))) {
      for (Path source : sources.filter(p -> p.toString().endsWith(".java")).toList()) {
        if (source.endsWith("ConfigVariables.java")) {
          continue;
        }
        Matcher m = VARIABLE.matcher(Files.readString(source));
        while (m.find()) {
          read.add(m.group(1));
        }
      }
    }
    assertThat(read).hasSizeGreaterThan(30);

    assertThat(listed()).containsAll(read);
  }

  @Test
  void everyListedVariableIsInTheReadmeAndHasAMeaning() throws Exception {
    String readme = Files.readString(Path.of("..", "README.md"));

    assertThat(listed()).allSatisfy(name -> assertThat(readme).contains("`" + name + "`"));
    assertThat(ConfigVariables.ALL).allSatisfy(v -> assertThat(v.meaning()).hasSizeGreaterThan(10));
    assertThat(ConfigVariables.ALL).doesNotHaveDuplicates();
  }
}
