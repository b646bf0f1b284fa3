package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.BurstListener;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import okhttp3.Request;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The formats of a note sent in pieces (PROTOCOL.md rules 1 and 10): every piece is asked once for
 * {@code verbose_json}, and {@code json}, {@code text}, {@code srt}, {@code vtt} and {@code
 * verbose_json} of the whole note are rendered from the pieces' answers, timed across the note.
 */
class LongNoteFormatsTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static final byte[] LECTURE = TestAudio.lecture();

  private static final String ALL_BURSTS = TestAudio.LECTURE_BURSTS;

  @RegisterExtension final OpenAiGateway fixture = OpenAiGateway.onDemand(Map.of());

  /** Names the bursts each call holds, and records the calls. */
  private final BurstListener listener = new BurstListener();

  @BeforeEach
  void providerNamesTheBurstsItHears() {
    fixture.provider().answerWith(listener::answer);
  }

  private Gateway.Reply upload(byte[] note, String... fields) throws Exception {
    return fixture.gateway().send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note, fields));
  }

  @Test
  void fiveFormatsOfAPiecedNoteCostOneCallPerPieceAndOneCharge() throws Exception {
    fixture.start(Map.of("BOLO_OPENAI_MAX_SECONDS", "20"));

    List<Gateway.Reply> replies = new ArrayList<>();
    for (String format : List.of("json", "text", "srt", "vtt", "verbose_json")) {
      replies.add(fixture.gateway().send(openAi(LECTURE, "response_format", format)));
    }

    assertThat(replies).allSatisfy(r -> assertThat(r.status()).as(r.body()).isEqualTo(200));
    assertThat(JSON.readTree(replies.get(0).body()).path("text").asText()).isEqualTo(ALL_BURSTS);
    assertThat(replies.get(1).body()).isEqualTo(ALL_BURSTS);
    assertThat(replies.get(2).body()).startsWith("1\n00:00:01,").contains("\n7\n");
    assertThat(replies.get(3).body()).startsWith("WEBVTT\n\n00:00:01.").endsWith("b6\n\n");
    assertThat(JSON.readTree(replies.get(4).body()).path("segments")).hasSize(7);
    long pieces = listener.calls().stream().map(BurstListener.Call::audioSha256).distinct().count();
    assertThat(pieces).isGreaterThanOrEqualTo(4);
    assertThat(fixture.provider().calls()).as("one call per piece").isEqualTo((int) pieces);
    assertThat(fixture.ledger().chargedMillis("alpha")).isEqualTo(TestAudio.LECTURE_MILLIS);
  }

  @Test
  void subtitlesOfAPiecedNoteAreNumberedAndTimedAcrossTheNote() throws Exception {
    fixture.start(Map.of("BOLO_OPENAI_MAX_SECONDS", "20"));

    Gateway.Reply reply = upload(LECTURE, "response_format", "srt");

    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    String srt = JSON.readTree(reply.body()).path("text").asText();
    List<String> cues = List.of(srt.strip().split("\n\n"));
    assertThat(cues).hasSize(7);
    long burstStart = 1500;
    int[] lengths = {5000, 6000, 7000, 8000, 9000, 10000, 11000};
    for (int i = 0; i < cues.size(); i++) {
      String[] lines = cues.get(i).split("\n");
      assertThat(lines[0]).isEqualTo(String.valueOf(i + 1));
      assertThat(lines[2]).isEqualTo("b" + i);
      long start = millis(lines[1].substring(0, 12));
      assertThat(start).as(cues.get(i)).isBetween(burstStart - 40, burstStart + 40);
      burstStart += lengths[i] + 1500;
    }
  }

  @Test
  void verboseJsonOfAPiecedNoteHasTheNotesDurationAndSegmentsOnItsTime() throws Exception {
    fixture.start(Map.of("BOLO_OPENAI_MAX_SECONDS", "20"));

    Gateway.Reply reply =
        fixture
            .gateway()
            .send(
                openAi(
                    LECTURE,
                    "response_format",
                    "verbose_json",
                    "timestamp_granularities[]",
                    "segment"));

    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    JsonNode verbose = JSON.readTree(reply.body());
    JsonNode segments = verbose.path("segments");
    assertThat(verbose.path("duration").asDouble()).isEqualTo(68.0);
    assertThat(verbose.path("text").asText()).isEqualTo(ALL_BURSTS);
    assertThat(segments).hasSize(7);
    long burstStart = 1500;
    int[] lengths = {5000, 6000, 7000, 8000, 9000, 10000, 11000};
    for (int i = 0; i < segments.size(); i++) {
      JsonNode segment = segments.get(i);
      assertThat(segment.path("id").asInt()).isEqualTo(i);
      assertThat(segment.path("text").asText().strip()).isEqualTo("b" + i);
      assertThat(Math.round(segment.path("start").asDouble() * 1000))
          .isBetween(burstStart - 40, burstStart + 40);
      burstStart += lengths[i] + 1500;
    }
  }

  /** An upload to the OpenAI-compatible endpoint, as an OpenAI SDK sends it. */
  private Request openAi(byte[] audio, String... fields) {
    return Gateway.openAiUploadRequest(
        fixture.gateway().url("/v1/audio/transcriptions"), Gateway.TOKEN_A, audio, fields);
  }

  private static long millis(String srtTime) {
    Function<Integer, Long> part = at -> Long.parseLong(srtTime.substring(at, at + 2));
    return part.apply(0) * 3_600_000
        + part.apply(3) * 60_000
        + part.apply(6) * 1000
        + Long.parseLong(srtTime.substring(9, 12));
  }
}
