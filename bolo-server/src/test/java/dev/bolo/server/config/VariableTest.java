package dev.bolo.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The one list of variables is complete, every variable in it is documented, and the table in
 * docs/configuration.md is the one {@link ConfigTable} writes, so neither can drift from the other.
 * After changing a variable, {@code ./mvnw -pl bolo-server -am test -Dtest=VariableTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Dbolo.writeConfigTable=true} writes the table into the
 * file.
 */
class VariableTest {

  /** A variable's name anywhere: in a message, a comment, a doc. */
  private static final Pattern NAMED = Pattern.compile("BOLO_[A-Z0-9_]*[A-Z0-9]");

  private static Set<String> listed() {
    return Variable.ALL.stream().map(Variable::name).collect(Collectors.toCollection(TreeSet::new));
  }

  @Test
  void everyVariableTheServerCodeNamesIsListed() throws Exception {
    Set<String> named = new TreeSet<>();
    try (Stream<Path> sources = Files.walk(Path.of("src", "main", "java"))) {
      for (Path source : sources.filter(p -> p.toString().endsWith(".java")).toList()) {
        Matcher m = NAMED.matcher(Files.readString(source));
        while (m.find()) {
          named.add(m.group());
        }
      }
    }
    assertThat(named).hasSizeGreaterThan(30).contains("BOLO_ADMIN_TOKEN", "BOLO_OPENAI_BASE_URL");

    assertThat(listed()).containsAll(named);
  }

  @Test
  void theDocumentedConfigurationTableIsTheOneTheVariablesWrite() throws Exception {
    Path doc = Path.of("..", "docs", "configuration.md");
    String text = Files.readString(doc);
    int start = text.indexOf(ConfigTable.HEADER);
    assertThat(start).as("docs/configuration.md has the table's header").isNotNegative();
    int end = text.indexOf("\n\n", start);
    String table = text.substring(start, end + 1);
    if (Boolean.getBoolean("bolo.writeConfigTable")) {
      Files.writeString(
          doc, text.substring(0, start) + ConfigTable.markdown() + text.substring(end + 1));
      return;
    }

    assertThat(table)
        .as(
            "docs/configuration.md's table; run VariableTest with -Dbolo.writeConfigTable=true"
                + " to write it")
        .isEqualTo(ConfigTable.markdown());
  }

  @Test
  void everyVariableHasAHelpLineAndARowAndEveryRowAVariable() {
    assertThat(Variable.ALL).allSatisfy(v -> assertThat(v.help()).hasSizeGreaterThan(10));
    assertThat(ConfigTable.values()).allSatisfy(row -> assertThat(row.variables()).isNotEmpty());
    assertThat(ConfigTable.markdown()).contains("`BOLO_CONFIG`", "`BOLO_PORT`", "`BOLO_JAVA_OPTS`");
  }

  @Test
  void everyDefaultTheParserAppliesIsTheOneTheHelpOrTheReadmeStates() {
    assertThat(Variable.ALL)
        .filteredOn(v -> v.defaultValue() != null && !v.defaultValue().isEmpty())
        // The table calls Google's long endpoint "Google's".
        .filteredOn(v -> v != Variable.BOLO_GEMINI_BASE_URL)
        .allSatisfy(
            v ->
                assertThat(v.help() + " " + v.row().defaults())
                    .as(v.name())
                    .contains(v.defaultValue()));
  }

  @Test
  void everyDefaultIsAValueItsOwnParserAccepts() {
    // Each variable set to its own default reads as the defaults do.
    Map<String, String> defaults =
        Arrays.stream(Variable.values())
            .filter(v -> v.defaultValue() != null && !v.defaultValue().isEmpty())
            .collect(Collectors.toMap(Variable::name, Variable::defaultValue));

    assertThat(ServerConfig.fromMap(defaults))
        .hasToString(ServerConfig.fromMap(Map.of()).toString());
  }
}
