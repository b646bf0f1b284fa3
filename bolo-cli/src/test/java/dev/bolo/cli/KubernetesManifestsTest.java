package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code deploy/kubernetes/} as the API server would take it: {@code deploy/kubernetes/validate}
 * checks every manifest against Kubernetes' schemas and field names (npm packages it installs;
 * Node.js from {@code .ci/run}) and against Bolo's own rules (grace period, probes, data directory,
 * sticky routing). A manifest with a misspelt field fails it.
 */
class KubernetesManifestsTest {

  /** The validator's packages, installed once for the class. */
  @TempDir static Path tools;

  @TempDir Path dir;

  private static String validatorVersion = "";

  @BeforeAll
  static void installTheValidator() throws Exception {
    Result first = validate(List.of());
    validatorVersion = first.output().lines().findFirst().orElse("");
  }

  @Test
  void everyManifestPassesTheSchemaAndBolosRules() throws Exception {
    Result result = validate(List.of());

    assertThat(result.exit()).as(result.output()).isZero();
    assertThat(result.output()).contains(" 0 failed").contains(validatorVersion);
  }

  @Test
  void aMisspeltFieldIsReported() throws Exception {
    String deployment =
        Files.readString(Checkout.ROOT.resolve("deploy/kubernetes/deployment.yaml"))
            .replace("terminationGracePeriodSeconds", "terminationGracePeriodSecond");
    Path broken = Files.writeString(dir.resolve("deployment.yaml"), deployment);

    Result result = validate(List.of(broken.toString()));

    assertThat(result.exit()).as(result.output()).isEqualTo(1);
    assertThat(result.output()).contains("terminationGracePeriodSecond");
  }

  private record Result(int exit, String output) {}

  private static Result validate(List<String> files) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Checkout.ROOT.resolve("deploy/kubernetes/validate").toString());
    command.addAll(files);
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().put("BOLO_VALIDATE_CACHE", tools.toString());
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(5, TimeUnit.MINUTES)).isTrue();
    return new Result(process.exitValue(), output);
  }
}
