package dev.bolo.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The one list of variables is complete, and the table in docs/configuration.md follows it: every
 * variable in one row, in the list's order, with the default the parser applies. The table's words
 * live in the doc alone; its names and defaults cannot drift from {@link Variable}.
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

  /** The rows of docs/configuration.md's table: each row's variables, then its defaults. */
  private static List<Row> documentedRows() throws IOException {
    String text = Files.readString(Path.of("..", "docs", "configuration.md"));
    int start = text.indexOf(HEADER);
    assertThat(start).as("docs/configuration.md has the table's header").isNotNegative();
    List<Row> rows = new ArrayList<>();
    for (String line : text.substring(start + HEADER.length()).split("\n")) {
      if (!line.startsWith("| `BOLO_")) {
        break;
      }
      String[] cells = line.split(" \\| ");
      List<String> names = new ArrayList<>();
      Matcher m = NAMED.matcher(cells[0]);
      while (m.find()) {
        names.add(m.group());
      }
      rows.add(new Row(names, cells[cells.length - 1]));
    }
    return rows;
  }

  private record Row(List<String> variables, String defaults) {}

  private static final String HEADER = "| variable | meaning | default |\n|---|---|---|\n";

  @Test
  void theDocumentedTableNamesEveryVariableOnceInTheListsOrder() throws IOException {
    List<String> documented =
        documentedRows().stream().flatMap(row -> row.variables().stream()).toList();

    assertThat(documented)
        .as("the first column of docs/configuration.md's table, row after row")
        .containsExactlyElementsOf(Variable.ALL.stream().map(Variable::name).toList());
  }

  @Test
  void everyDefaultTheParserAppliesIsTheOneTheTableStates() throws IOException {
    Map<String, String> defaultsColumn = new HashMap<>();
    for (Row row : documentedRows()) {
      row.variables().forEach(name -> defaultsColumn.put(name, row.defaults()));
    }
    assertThat(Variable.ALL)
        .filteredOn(v -> v.defaultValue() != null && !v.defaultValue().isEmpty())
        // The table calls Google's long endpoint "Google's".
        .filteredOn(v -> v != Variable.BOLO_GEMINI_BASE_URL)
        .allSatisfy(
            v ->
                assertThat(defaultsColumn.get(v.name()))
                    .as(v.name() + "'s row of docs/configuration.md")
                    .contains(v.defaultValue()));
  }

  /**
   * docs/PROTOCOL.md's shorter table of the variables states the same defaults: it once said the
   * upload slots were "sized to the machine" while the default was a fixed 256.
   */
  @Test
  void theProtocolsTableNamesOnlyVariablesThatExistWithTheDefaultsTheParserApplies()
      throws IOException {
    String text = Files.readString(Path.of("..", "docs", "PROTOCOL.md"));
    int start = text.indexOf(HEADER);
    assertThat(start).as("docs/PROTOCOL.md has the table's header").isNotNegative();
    Map<String, Variable> byName = new HashMap<>();
    Variable.ALL.forEach(v -> byName.put(v.name(), v));
    List<String> wrong = new ArrayList<>();
    int rows = 0;
    for (String line : text.substring(start + HEADER.length()).split("\n")) {
      if (!line.startsWith("| `BOLO_")) {
        break;
      }
      rows++;
      String[] cells = line.split(" \\| ");
      // An engine's own variables (BOLO_ENGINE_<NAME>_KIND) are named by the operator.
      Matcher m = NAMED.matcher(cells[0].replaceAll("BOLO_ENGINE_<NAME>_\\w+", ""));
      while (m.find()) {
        Variable variable = byName.get(m.group());
        String fallback = variable == null ? null : variable.defaultValue();
        if (variable == null) {
          wrong.add(m.group() + " is no variable");
        } else if (fallback != null
            && !fallback.isEmpty()
            // Google's endpoint and model are "Google's" and "a current flash model" there.
            && variable != Variable.BOLO_GEMINI_BASE_URL
            && variable != Variable.BOLO_GEMINI_MODEL
            && !cells[cells.length - 1].contains(fallback)) {
          wrong.add(
              m.group() + "'s default " + fallback + " is not in: " + cells[cells.length - 1]);
        }
      }
    }
    assertThat(rows).isGreaterThan(20);

    assertThat(wrong).isEmpty();
  }

  @Test
  void everyVariableHasAHelpLine() {
    assertThat(Variable.ALL).allSatisfy(v -> assertThat(v.help()).hasSizeGreaterThan(10));
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
