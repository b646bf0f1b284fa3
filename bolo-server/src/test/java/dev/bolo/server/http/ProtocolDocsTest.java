package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import okhttp3.Request;
import okhttp3.RequestBody;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The error codes and endpoints that docs/PROTOCOL.md and the HTTP docs name are the ones the
 * gateway answers, and the reverse: a code renamed, a status changed, an answer added without its
 * row, or an endpoint documented but not routed breaks this test, not a client.
 */
class ProtocolDocsTest {

  private static final Path DOCS = Path.of("..", "docs");

  /** The docs whose tables of {@code | status | code |} list the answers a client may get. */
  private static final List<String> ERROR_TABLES =
      List.of("PROTOCOL.md", "http-api.md", "admin-api.md");

  /**
   * Every error answer is an {@link ApiError} built in this package with its status and code, or
   * the refusal of a rung of the {@link AdmissionLadder}, which holds its own.
   */
  private static final Pattern ANSWERED =
      Pattern.compile("new ApiError\\(\\s*(\\d{3}),\\s*\"([a-z_]+)\"");

  private static final Pattern CODE = Pattern.compile("`([a-z]+(?:_[a-z]+)*)`");

  /** An endpoint as the docs write it: {@code `GET /v1/models/{id}`}. */
  private static final Pattern ENDPOINT =
      Pattern.compile("`(GET|POST|PATCH|HEAD|DELETE|OPTIONS) (/[^`?\\s]*)");

  @TempDir Path dataDir;

  /** The status and code of every error answer the gateway's HTTP layer can build. */
  private static Set<String> answered() throws IOException {
    Set<String> answers = new TreeSet<>();
    try (Stream<Path> sources =
        Files.list(Path.of("src", "main", "java", "dev", "bolo", "server", "http"))) {
      for (Path source : sources.toList()) {
        Matcher m = ANSWERED.matcher(Files.readString(source));
        while (m.find()) {
          answers.add(m.group(1) + " " + m.group(2));
        }
      }
    }
    for (AdmissionLadder rung : AdmissionLadder.values()) {
      answers.add(rung.status() + " " + rung.code());
    }
    assertThat(answers).hasSizeGreaterThan(20).contains("413 audio_too_large");
    return answers;
  }

  /** The status and code of every row of the docs' error tables ({@code | 503 | `code`, … |}). */
  private static Set<String> tabled() throws IOException {
    Set<String> rows = new TreeSet<>();
    for (String doc : ERROR_TABLES) {
      boolean inTable = false;
      for (String line : Files.readAllLines(DOCS.resolve(doc))) {
        if (line.startsWith("| status | code |")) {
          inTable = true;
          continue;
        }
        if (!line.startsWith("|")) {
          inTable = false;
        }
        if (!inTable || line.startsWith("|---")) {
          continue;
        }
        String[] cells = line.substring(1).split("\\|");
        for (String status : cells[0].split(",")) {
          Matcher codes = CODE.matcher(cells[1]);
          while (codes.find()) {
            rows.add(status.strip() + " " + codes.group(1));
          }
        }
      }
    }
    assertThat(rows).hasSizeGreaterThan(20).contains("503 server_unavailable");
    return rows;
  }

  /** Every doc of the HTTP surface, as one text. */
  private static String allDocs() throws IOException {
    StringBuilder text = new StringBuilder();
    try (Stream<Path> docs = Files.list(DOCS)) {
      for (Path doc : docs.filter(p -> p.toString().endsWith(".md")).toList()) {
        text.append(Files.readString(doc)).append('\n');
      }
    }
    return text.toString();
  }

  @Test
  void everyErrorTheDocsTabulateIsOneTheGatewayAnswersWithThatStatus() throws IOException {
    assertThat(answered()).containsAll(tabled());
  }

  @Test
  void everyErrorTheGatewayAnswersIsDocumentedWithItsStatus() throws IOException {
    Set<String> tabled = tabled();
    String docs = allDocs();
    List<String> undocumented = new ArrayList<>();
    for (String answer : answered()) {
      String[] statusAndCode = answer.split(" ");
      // In a table, or in a sentence of the endpoint's doc: "answered 409
      // `upload_offset_mismatch`".
      boolean written = docs.contains(statusAndCode[0] + " `" + statusAndCode[1] + "`");
      if (!tabled.contains(answer) && !written) {
        undocumented.add(answer);
      }
    }

    assertThat(undocumented).as("answers no doc names with their status").isEmpty();
  }

  @Test
  void everyEndpointProtocolNamesIsRoutedByARunningGateway() throws Exception {
    Map<String, String> endpoints = new HashMap<>();
    for (String doc : List.of("PROTOCOL.md", "http-api.md")) {
      Matcher m = ENDPOINT.matcher(Files.readString(DOCS.resolve(doc)));
      while (m.find()) {
        endpoints.put(m.group(1) + " " + m.group(2), m.group(1));
      }
    }
    assertThat(endpoints).hasSizeGreaterThan(12).containsKey("POST /v1/transcriptions");

    List<String> unrouted = new ArrayList<>();
    Map<String, String> env = new HashMap<>();
    try (FakeProvider provider = new FakeProvider()) {
      env.putAll(Gateway.openAiEnvironment(provider, dataDir));
      env.put("BOLO_ADMIN_TOKEN", "admin-token-0123456789abcdef");
      env.put("BOLO_TLS", "on");
      try (Gateway gateway = Gateway.withEnvironment(env)) {
        for (String endpoint : endpoints.keySet()) {
          String method = endpoints.get(endpoint);
          String path = example(endpoint.substring(method.length() + 1));
          Request request =
              new Request.Builder()
                  .url(gateway.secureUrl("localhost", path))
                  .header("Authorization", "Bearer " + Gateway.TOKEN_A)
                  .method(method, method.equals("GET") ? null : RequestBody.create(new byte[0]))
                  .build();
          Gateway.Reply reply = Gateway.replyOf(gateway.secureClient().newCall(request).execute());
          // A route that exists answers anything but "no such endpoint" or "not this method".
          if (reply.body().contains("no such endpoint") || reply.status() == 405) {
            unrouted.add(endpoint + " -> " + reply.status());
          }
        }
      }
    }

    assertThat(unrouted).as("endpoints the docs name that the gateway does not route").isEmpty();
  }

  /** A path of the docs with an example in each {@code {placeholder}}. */
  private static String example(String path) {
    return path.replace("{sha256}", "0".repeat(64))
        .replace("{id}", "no-such-upload")
        .replace("{file}", "bolo.css")
        .replace("…", "devices");
  }
}
