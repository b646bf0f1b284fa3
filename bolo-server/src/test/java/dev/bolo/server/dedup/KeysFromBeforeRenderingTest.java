package dev.bolo.server.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bolo.server.engine.ResponseFormat;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.server.work.WorkKey;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.List;
import java.util.Map;
import okhttp3.Request;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Transcripts kept in Redis by a gateway from before every format was rendered from one answer
 * (PROTOCOL.md rule 12) and before the timed transcript was kept, written here in that gateway's
 * own entry form ({@code text} and {@code body}), met by an upgraded gateway on the same Redis: one
 * kept under the key of a timed model's {@code srt} request is never served, one kept under the key
 * of a {@code verbose_json} request serves every format without a provider call ({@code
 * verbose_json} byte for byte), and the subtitle document of a model without timings is replayed as
 * it was kept.
 */
class KeysFromBeforeRenderingTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final EmbeddedRedis redis = EmbeddedRedis.start();

  @RegisterExtension final OpenAiGateway fixture = OpenAiGateway.onDemand(Map.of());

  @AfterEach
  void stopRedis() {
    redis.close();
  }

  @Test
  void anOldSubtitleKeyIsNeverServedAndAnOldVerboseJsonKeyServesEveryFormat() throws Exception {
    byte[] subtitled = TestAudio.wav(1500, 81);
    byte[] verbose = TestAudio.wav(1500, 82);
    String oldSrt = "1\n00:00:00,000 --> 00:00:01,500\nkept before the upgrade\n\n";
    String oldVerbose =
        "{\"task\":\"transcribe\",\"language\":\"english\",\"duration\":1.5,"
            + "\"text\":\"kept as verbose\",\"segments\":[{\"id\":0,\"start\":0.25,\"end\":1.5,"
            + "\"text\":\" kept as verbose\"}]}";
    keep(asked(ResponseFormat.SRT, List.of()), subtitled, oldSrt, oldSrt);
    keep(
        asked(ResponseFormat.VERBOSE_JSON, List.of("segment")),
        verbose,
        "kept as verbose",
        oldVerbose);
    Gateway gateway = fixture.start(Map.of("BOLO_STORE", "redis", "BOLO_REDIS_URL", redis.url()));

    Gateway.Reply srt = gateway.send(openAi(gateway, subtitled, "srt"));
    assertThat(srt.status()).as(srt.body()).isEqualTo(200);
    assertThat(srt.body()).doesNotContain("kept before the upgrade").contains("transcript of");
    assertThat(fixture.provider().calls()).isEqualTo(1);

    Gateway.Reply json = gateway.send(openAi(gateway, verbose, "json"));
    Gateway.Reply vtt = gateway.send(openAi(gateway, verbose, "vtt"));
    assertThat(JSON.readTree(json.body()).path("text").asText()).isEqualTo("kept as verbose");
    assertThat(json.replayed()).isEqualTo("true");
    assertThat(vtt.body())
        .isEqualTo("WEBVTT\n\n00:00:00.250 --> 00:00:01.500\nkept as verbose\n\n");
    Gateway.Reply verboseJson = gateway.send(openAi(gateway, verbose, "verbose_json"));
    assertThat(verboseJson.body()).as("the old body, byte for byte").isEqualTo(oldVerbose);
    assertThat(fixture.provider().calls()).as("served from the old key").isEqualTo(1);
  }

  @Test
  void anOldSubtitleDocumentOfAModelWithoutTimingsIsReplayedByteForByte() throws Exception {
    byte[] note = TestAudio.wav(1500, 83);
    String oldVtt = "WEBVTT\n\n00:00:00.000 --> 00:00:01.500\nkept as a document\n\n";
    keep(
        new Settings("openai", "gpt-4o-transcribe", "", "", "0", ResponseFormat.VTT, List.of()),
        note,
        oldVtt,
        oldVtt);
    Gateway gateway =
        fixture.start(
            Map.of(
                "BOLO_STORE",
                "redis",
                "BOLO_REDIS_URL",
                redis.url(),
                "BOLO_OPENAI_MODELS",
                "whisper-1,gpt-4o-transcribe"));

    Gateway.Reply openAi =
        gateway.send(
            Gateway.openAiUploadRequest(
                gateway.url("/v1/audio/transcriptions"),
                Gateway.TOKEN_A,
                note,
                "model",
                "gpt-4o-transcribe",
                "response_format",
                "vtt"));
    Gateway.Reply nativeAnswer =
        gateway.send(
            gateway.nativeUpload(
                Gateway.TOKEN_A, note, "model", "gpt-4o-transcribe", "response_format", "vtt"));

    assertThat(openAi.status()).as(openAi.body()).isEqualTo(200);
    assertThat(openAi.body()).isEqualTo(oldVtt);
    assertThat(openAi.contentType()).startsWith("text/vtt");
    assertThat(openAi.replayed()).isEqualTo("true");
    assertThat(JSON.readTree(nativeAnswer.body()).path("text").asText()).isEqualTo(oldVtt);
    assertThat(fixture.provider().calls()).as("both served from the old key").isZero();
  }

  private static Settings asked(ResponseFormat format, List<String> granularities) {
    return new Settings("openai", "whisper-1", "", "", "0", format, granularities);
  }

  /**
   * Keeps a transcript as the gateway before the upgrade did, under that gateway's key and in its
   * entry's form: {@code text} and {@code body}, no {@code form}.
   */
  private void keep(Settings settings, byte[] note, String text, String body) {
    WorkKey key = WorkKey.of("alpha", settings, WorkKey.sha256Hex(note));
    ObjectNode entry = JSON.createObjectNode();
    entry.put("text", text);
    entry.put("body", body);
    entry.put("engine", "openai");
    entry.put("duration_ms", 1500);
    entry.put("duration_measured", true);
    entry.put("audio_sha256", key.audioSha256());
    entry.put("settings_fingerprint", key.settingsFingerprint());
    RedisClient client = RedisClient.create(redis.url());
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      connection.sync().psetex("bolo:{" + key.asString() + "}:done", 3_600_000, entry.toString());
    } finally {
      client.shutdown();
    }
  }

  private static Request openAi(Gateway gateway, byte[] note, String format) {
    return Gateway.openAiUploadRequest(
        gateway.url("/v1/audio/transcriptions"),
        Gateway.TOKEN_A,
        note,
        "model",
        "whisper-1",
        "response_format",
        format);
  }
}
