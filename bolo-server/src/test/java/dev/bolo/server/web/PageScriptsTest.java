package dev.bolo.server.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The page's own scripts that hold rules (the recorder's resampling, the WAV file) tested on their
 * own with Node's test runner: {@code src/test/node/page}. The sending (the resend policy, the
 * uploads) is Bolo's JavaScript client, whose own tests bolo-client's JavaScriptClientTest runs.
 * Node.js must be on the PATH ({@code .ci/run} installs it); without it this test fails and says
 * so.
 */
class PageScriptsTest {

  private static final Path TESTS = Path.of("src", "test", "node", "page");

  private static final Pattern COUNT = Pattern.compile("^# (pass|fail) (\\d+)$", Pattern.MULTILINE);

  @Test
  void theRecorderAndTheWavEncoderPassTheirNodeTests() throws Exception {
    List<String> command = List.of("node", "--test", TESTS.resolve("recorder.test.mjs").toString());
    Process node;
    try {
      node = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new AssertionError(
          "Node.js is not on the PATH, so the page's scripts cannot be tested; install it"
              + " (Debian: apt-get install nodejs; .ci/run does this)",
          e);
    }
    String output = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!node.waitFor(2, TimeUnit.MINUTES)) {
      node.destroyForcibly();
      fail("node --test did not finish in 2 minutes: " + output);
    }

    assertThat(node.exitValue()).as(output).isZero();
    Matcher counts = COUNT.matcher(output);
    int passed = -1;
    int failed = -1;
    while (counts.find()) {
      int n = Integer.parseInt(counts.group(2));
      if (counts.group(1).equals("pass")) {
        passed = n;
      } else {
        failed = n;
      }
    }
    assertThat(failed).as(output).isZero();
    assertThat(passed).as(output).isGreaterThanOrEqualTo(8);
  }
}
