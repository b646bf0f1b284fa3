package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OfflineGateway;
import dev.bolo.server.testing.SampleNotes;
import dev.bolo.server.testing.TestAudio;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import okhttp3.MultipartBody;
import okhttp3.Request;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The docs' tables of what a client is answered, read row by row and checked against a running
 * gateway on the offline engine: the error table of {@code docs/http-api.md} (every status and code
 * this gateway can be made to answer here; the rest are named with the test that provokes them) and
 * the table of {@code docs/engines.md} of what a note the gateway cannot read gets. A row that says
 * one thing while the server does another fails here, not in a newcomer's hands.
 */
class ErrorTablesTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path DOCS = Path.of("..", "docs");

  /** Small limits, so that a note over each is small too. */
  private static final int MAX_UPLOAD_BYTES = 1024 * 1024;

  private static final int OFFLINE_MAX_SECONDS = 10;

  @RegisterExtension
  static final OfflineGateway offline =
      new OfflineGateway(
          Map.of(
              "BOLO_MAX_UPLOAD_BYTES",
              Integer.toString(MAX_UPLOAD_BYTES),
              "BOLO_OFFLINE_MAX_SECONDS",
              Integer.toString(OFFLINE_MAX_SECONDS)));

  /**
   * The rows of docs/http-api.md's error table that need an engine fault, a provider, a slow client
   * or a spent quota, each with the test that provokes it.
   */
  private static final Map<String, String> PROVOKED_ELSEWHERE =
      Map.ofEntries(
          Map.entry("402 quota_exhausted", "QuotaTest"),
          Map.entry("408 request_timeout", "HostileClientsTest"),
          Map.entry("414, 431, 505 invalid_parameter", "HostileClientsTest, the HTTP layer's own"),
          Map.entry("409 idempotency_conflict", "a bug guard: no request can provoke it"),
          Map.entry("422 upstream_rejected", "GatewayErrorsTest, a provider's refusal"),
          Map.entry("429 rate_limited", "RateLimitTest"),
          Map.entry("500 internal_error", "EngineFaultTest"),
          Map.entry("502 upstream_error", "GatewayErrorsTest"),
          Map.entry("503 upstream_unavailable", "GatewayErrorsTest"),
          Map.entry("503 server_unavailable", "UploadAdmissionTest"),
          Map.entry("504 upstream_timeout", "GatewayErrorsTest"));

  @Test
  void everyRowOfTheHttpApiErrorTableIsWhatTheGatewayAnswers() throws IOException {
    Map<String, Request> probes = httpApiProbes();
    Set<String> documented = new LinkedHashSet<>();
    for (List<String> row : table("http-api.md", "| status | code | when | resend? |")) {
      for (String code : codesIn(row.get(1))) {
        documented.add(row.get(0) + " " + code);
      }
    }
    Set<String> known = new LinkedHashSet<>(probes.keySet());
    known.addAll(PROVOKED_ELSEWHERE.keySet());
    assertThat(documented)
        .as("each row is sent here or named with the test that provokes it")
        .containsExactlyInAnyOrderElementsOf(known);

    SoftAssertions softly = new SoftAssertions();
    for (Map.Entry<String, Request> probe : probes.entrySet()) {
      Gateway.Reply reply = offline.gateway().send(probe.getValue());
      softly
          .assertThat(reply.status() + " " + codeOf(reply.body()))
          .as("%s: %s", probe.getKey(), reply.body())
          .isEqualTo(probe.getKey());
    }
    softly.assertAll();
  }

  @Test
  void everyRowOfTheEnginesTableOfUnreadableNotesIsWhatTheGatewayAnswers() throws IOException {
    Map<String, byte[]> examples = unreadableNotes();
    List<List<String>> rows = table("engines.md", "| the note | answer |");
    Set<String> sent = new LinkedHashSet<>();

    SoftAssertions softly = new SoftAssertions();
    for (List<String> row : rows) {
      Matcher answer = Pattern.compile("(\\d{3}) `([a-z_]+)`").matcher(row.get(1));
      assertThat(answer.find()).as("a status and a code in '%s'", row.get(1)).isTrue();
      List<String> inRow = new ArrayList<>();
      examples.forEach(
          (example, note) -> {
            if (row.get(0).contains(example)) {
              inRow.add(example);
            }
          });
      assertThat(inRow).as("an example of '%s' this test can send", row.get(0)).isNotEmpty();
      for (String example : inRow) {
        Gateway.Reply reply =
            offline
                .gateway()
                .send(offline.gateway().nativeUpload(Gateway.TOKEN_A, examples.get(example)));
        softly
            .assertThat(reply.status() + " " + codeOf(reply.body()))
            .as("%s: %s", example, reply.body())
            .isEqualTo(answer.group(1) + " " + answer.group(2));
        sent.add(example);
      }
    }
    softly.assertAll();
    assertThat(sent).as("every example is in a row").isEqualTo(examples.keySet());
  }

  /** For each status and code this gateway can be made to answer, a request that gets it. */
  private static Map<String, Request> httpApiProbes() throws IOException {
    Gateway gateway = offline.gateway();
    byte[] note = SampleNotes.named("groceries").bytes();
    Map<String, Request> probes = new LinkedHashMap<>();
    probes.put(
        "400 missing_audio",
        authorised(gateway.url("/v1/transcriptions"))
            .post(
                new MultipartBody.Builder()
                    .setType(MultipartBody.FORM)
                    .addFormDataPart("language", "en")
                    .build())
            .build());
    probes.put("400 empty_audio", gateway.nativeUpload(Gateway.TOKEN_A, new byte[0]));
    probes.put(
        "400 audio_hash_mismatch",
        gateway
            .nativeUpload(Gateway.TOKEN_A, note)
            .newBuilder()
            .header("X-Bolo-Audio-Sha256", "ab".repeat(32))
            .build());
    probes.put(
        "400 invalid_parameter",
        gateway.nativeUpload(Gateway.TOKEN_A, note, "temperature", "warm"));
    probes.put("400 invalid_audio", gateway.nativeUpload(Gateway.TOKEN_A, contradictoryWav()));
    probes.put("401 unauthorized", gateway.nativeUpload(null, note));
    probes.put("404 not_found", authorised(gateway.url("/v1/nothing-here")).build());
    probes.put(
        "405 method_not_allowed", authorised(gateway.url("/v1/audio/transcriptions")).build());
    probes.put(
        "413 audio_too_large", gateway.nativeUpload(Gateway.TOKEN_A, TestAudio.wav(40_000, 1)));
    probes.put(
        "413 audio_too_long",
        gateway.nativeUpload(Gateway.TOKEN_A, TestAudio.wav((OFFLINE_MAX_SECONDS + 2) * 1000, 2)));
    probes.put("415 unsupported_audio", gateway.nativeUpload(Gateway.TOKEN_A, text()));
    probes.put(
        "422 invalid_parameter",
        gateway.nativeUpload(Gateway.TOKEN_A, note, "model", "whisper-large-v3"));
    probes.put(
        "422 translation_unsupported",
        Gateway.openAiUploadRequest(
            gateway.url("/v1/audio/translations"), Gateway.TOKEN_A, note, "model", "whisper-1"));
    probes.put(
        "422 idempotency_key_reused",
        gateway
            .nativeUpload(Gateway.TOKEN_A, TestAudio.wav(500, 3))
            .newBuilder()
            .header("Idempotency-Key", "reused-for-another-note")
            .build());
    // The key's first note, sent before the probes run; the probe above reuses the key.
    Gateway.Reply first =
        gateway.send(
            gateway
                .nativeUpload(Gateway.TOKEN_A, note)
                .newBuilder()
                .header("Idempotency-Key", "reused-for-another-note")
                .build());
    assertThat(first.status()).as(first.body()).isEqualTo(200);
    return probes;
  }

  /** For each example a row of the engines table names, the note it describes. */
  private static Map<String, byte[]> unreadableNotes() throws IOException {
    Map<String, byte[]> notes = new LinkedHashMap<>();
    notes.put("no bytes", new byte[0]);
    notes.put("a WAV header with less than a millisecond of samples", TestAudio.wav(0, 1));
    notes.put("a text file", text());
    notes.put(
        "raw AMR (`#!AMR`)", ("#!AMR\n" + "\0".repeat(320)).getBytes(StandardCharsets.ISO_8859_1));
    notes.put("a WAV whose byte rate is not its sample rate × block size", contradictoryWav());
    byte[] m4a = resource("aac-moov-at-end.m4a");
    notes.put("an M4A cut off before its index", Arrays.copyOf(m4a, m4a.length / 2));
    return notes;
  }

  private static Request.Builder authorised(String url) {
    return new Request.Builder().url(url).header("Authorization", "Bearer " + Gateway.TOKEN_A);
  }

  private static byte[] text() {
    return "a shopping list: bread, milk, eggs".getBytes(StandardCharsets.UTF_8);
  }

  /** Two seconds of WAV that claims 0xFFFFFFFF bytes a second. */
  private static byte[] contradictoryWav() {
    byte[] wav = TestAudio.wav(2000, 7);
    ByteBuffer.wrap(wav).order(ByteOrder.LITTLE_ENDIAN).putInt(28, 0xFFFFFFFF);
    return wav;
  }

  private static byte[] resource(String file) throws IOException {
    try (InputStream in =
        Objects.requireNonNull(ErrorTablesTest.class.getResourceAsStream("/audio/" + file), file)) {
      return in.readAllBytes();
    }
  }

  /** The code of an error in either shape: native {@code code}, OpenAI's {@code error.code}. */
  private static String codeOf(String body) throws IOException {
    JsonNode json = JSON.readTree(body);
    JsonNode error = json.path("error");
    return error.isObject() ? error.path("code").asText() : json.path("code").asText();
  }

  private static List<String> codesIn(String cell) {
    List<String> codes = new ArrayList<>();
    Matcher code = Pattern.compile("`([a-z_]+)`").matcher(cell);
    while (code.find()) {
      codes.add(code.group(1));
    }
    return codes;
  }

  /** The cells of each row of the table in {@code doc} whose header line is {@code header}. */
  private static List<List<String>> table(String doc, String header) throws IOException {
    List<String> lines = Files.readAllLines(DOCS.resolve(doc));
    int start = lines.indexOf(header);
    assertThat(start).as("%s has a table headed %s", doc, header).isNotNegative();
    List<List<String>> rows = new ArrayList<>();
    for (int i = start + 2; i < lines.size() && lines.get(i).startsWith("|"); i++) {
      String line = lines.get(i);
      List<String> cells = new ArrayList<>();
      for (String cell : line.substring(1, line.length() - 1).split("\\|")) {
        cells.add(cell.strip());
      }
      rows.add(cells);
    }
    assertThat(rows).as("%s's table headed %s", doc, header).isNotEmpty();
    return rows;
  }
}
