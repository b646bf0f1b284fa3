package dev.bolo.server.engine.offline;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README says, in one line, how accurate the default engine is, with the figures
 * docs/engines.md measured and where the measurements are: a newcomer whose own voice comes back
 * garbled learns there that it is the engine, not a bug. When the default engine changes, its
 * figures in docs/engines.md change, and this test asks for the README's line to follow.
 */
class AccuracyClaimTest {

  private static final Path README = Path.of("..", "README.md");
  private static final Path ENGINES = Path.of("..", "docs", "engines.md");

  /** The README's line, which begins so, for whoever updates it. */
  private static final String LINE_START = "- **How accurate the default engine is**: ";

  private static final Pattern PERCENT = Pattern.compile("(\\d+(?:\\.\\d+)?) %");

  @Test
  void theReadmeStatesTheDefaultEnginesWordErrorRatesAsDocsEnginesMdMeasuredThem()
      throws IOException {
    String line =
        Files.readAllLines(README).stream()
            .filter(l -> l.startsWith(LINE_START))
            .findFirst()
            .orElseThrow(() -> new AssertionError("README.md has no line " + LINE_START + "…"));
    String engines = Files.readString(ENGINES);
    // The held-out set's overall figure: the last cell of the table's row of Bolo's engine.
    Matcher row =
        Pattern.compile("(?m)^\\| Bolo's engine \\(([^)]+)\\) \\|.*\\*\\*([\\d.]+ %)\\*\\* \\|$")
            .matcher(engines);
    assertThat(row.find())
        .as("docs/engines.md's accuracy table has a row of Bolo's engine")
        .isTrue();

    assertThat(line)
        .contains(row.group(1))
        .contains(row.group(2))
        .contains("word error rate")
        .contains("bolo-bench/accuracy")
        .contains("docs/engines.md#offline-default");
    List<String> figures = new ArrayList<>();
    PERCENT.matcher(line).results().forEach(m -> figures.add(m.group()));
    assertThat(figures).as("the figures the line gives").hasSizeGreaterThanOrEqualTo(2);
    assertThat(engines).as("docs/engines.md measured each of them").contains(figures);
  }
}
