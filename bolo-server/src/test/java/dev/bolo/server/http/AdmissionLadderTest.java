package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bolo.server.config.Variable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The admission ladder as docs/http-api.md shows it is the code's: the same rungs in the same
 * order, each with the answer, {@code Retry-After} and variables it refuses with, and every
 * variable one the gateway reads. Each rung's refusal is provoked by the tests of its check
 * (RequestAdmissionTest, DeviceAccessTest, WrongTokensTest, RateLimitTest, UploadAdmissionTest,
 * HostileClientsTest, ResumableUploadsTest).
 */
class AdmissionLadderTest {

  private static final Path HTTP_API = Path.of("..", "docs", "http-api.md");
  private static final Pattern TICKED = Pattern.compile("`([A-Z0-9_]+)`");

  @Test
  void theDocsLadderHasTheCodesRungsInOrderWithTheirAnswersAndVariables() throws IOException {
    List<String[]> rows = ladderRows();

    assertThat(rows.stream().map(row -> row[0]).toList())
        .as("the rungs of docs/http-api.md's admission ladder, in order")
        .isEqualTo(
            Arrays.stream(AdmissionLadder.values())
                .map(rung -> rung.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' '))
                .toList());
    for (AdmissionLadder rung : AdmissionLadder.values()) {
      String[] row = rows.get(rung.ordinal());
      assertThat(row[2]).as(rung + "'s answer").isEqualTo(rung.status() + " `" + rung.code() + "`");
      assertThat(row[3]).as(rung + "'s Retry-After").isEqualTo(retryAfterCell(rung));
      assertThat(ticked(row[4])).as(rung + "'s variables").isEqualTo(rung.variables());
    }
  }

  @Test
  void everyRungIsSetByVariablesTheGatewayReads() {
    for (AdmissionLadder rung : AdmissionLadder.values()) {
      for (String variable : rung.variables()) {
        assertThat(Variable.valueOf(variable)).as(rung + " names " + variable).isNotNull();
      }
    }
  }

  @Test
  void aRungRefusesWithItsOwnStatusCodeAndRetryAfter() {
    ApiError slots = AdmissionLadder.UPLOAD_SLOTS.refusal("too many uploads at once");
    ApiError rate =
        AdmissionLadder.DEVICE_RATE.refusal("too many requests", Duration.ofSeconds(42));

    assertThat(slots.status()).isEqualTo(503);
    assertThat(slots.code()).isEqualTo("server_unavailable");
    assertThat(slots.retryAfter()).isEqualTo(Duration.ofSeconds(5));
    assertThat(rate.status()).isEqualTo(429);
    assertThat(rate.retryAfter()).isEqualTo(Duration.ofSeconds(42));
    assertThat(AdmissionLadder.TOKEN.refusal("no token").retryAfter()).isNull();
  }

  @Test
  void aRungWhoseCheckSaysWhenCannotRefuseWithoutAWaitNorAFixedOneWithOne() {
    assertThatThrownBy(() -> AdmissionLadder.WRONG_TOKENS.refusal("too many wrong tokens"))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> AdmissionLadder.DRAINING.refusal("draining", Duration.ofSeconds(9)))
        .isInstanceOf(IllegalStateException.class);
  }

  private static String retryAfterCell(AdmissionLadder rung) {
    if (rung.givesRetryAfter()) {
      return "(given by its check)";
    }
    Duration fixed = rung.retryAfter();
    return fixed == null ? "none" : Long.toString(fixed.toSeconds());
  }

  /** The cells of the ladder table, a row each; a given Retry-After is shown as its check's. */
  private static List<String[]> ladderRows() throws IOException {
    List<String[]> rows = new ArrayList<>();
    boolean inTable = false;
    for (String line : Files.readAllLines(HTTP_API)) {
      if (line.startsWith("| rung | checked |")) {
        inTable = true;
        continue;
      }
      if (!inTable || line.startsWith("|---")) {
        continue;
      }
      if (!line.startsWith("|")) {
        break;
      }
      String[] cells = line.substring(1, line.length() - 1).split("\\|");
      for (int i = 0; i < cells.length; i++) {
        cells[i] = cells[i].trim();
      }
      if (!cells[3].equals("none") && !cells[3].chars().allMatch(Character::isDigit)) {
        cells[3] = "(given by its check)";
      }
      rows.add(cells);
    }
    assertThat(rows).as("the admission ladder's table in docs/http-api.md").isNotEmpty();
    return rows;
  }

  private static List<String> ticked(String cell) {
    List<String> names = new ArrayList<>();
    Matcher matcher = TICKED.matcher(cell);
    while (matcher.find()) {
      names.add(matcher.group(1));
    }
    return names;
  }
}
