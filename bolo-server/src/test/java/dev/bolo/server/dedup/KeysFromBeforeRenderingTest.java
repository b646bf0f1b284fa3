package dev.bolo.server.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.engine.ResponseFormat;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.server.work.KeptTranscript;
import dev.bolo.server.work.WorkKey;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import okhttp3.Request;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Transcripts kept in Redis by a gateway from before every format was rendered from one answer
 * (PROTOCOL.md rule 1), met by an upgraded gateway on the same Redis: one kept under the key of an
 * {@code srt} request (its text the subtitle document) is never served, while one kept under the
 * key of a {@code verbose_json} request is the answer the new gateway would have kept, and serves
 * every format without a provider call.
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
    try (RedisDedupStore before =
        RedisDedupStore.connect(
            RedisDedupStoreTest.options(redis.url(), Duration.ofHours(1)),
            System::nanoTime,
            () -> {})) {
      keep(before, asked(ResponseFormat.SRT, List.of()), subtitled, oldSrt, oldSrt);
      keep(
          before,
          asked(ResponseFormat.VERBOSE_JSON, List.of("segment")),
          verbose,
          "kept as verbose",
          oldVerbose);
    }
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
    assertThat(fixture.provider().calls()).as("served from the old key").isEqualTo(1);
  }

  private static Settings asked(ResponseFormat format, List<String> granularities) {
    return new Settings("openai", "whisper-1", "", "", "0", format, granularities);
  }

  /** Keeps a transcript as the gateway before the upgrade did, under that gateway's key. */
  private static void keep(
      RedisDedupStore store, Settings settings, byte[] note, String text, String body) {
    WorkKey key = WorkKey.of("alpha", settings, WorkKey.sha256Hex(note));
    Claim.Owned owner = (Claim.Owned) store.claim(key, Duration.ofMinutes(1));
    assertThat(
            store.complete(
                key,
                owner,
                new KeptTranscript(
                    text,
                    body,
                    "openai",
                    1500,
                    true,
                    key.audioSha256(),
                    key.settingsFingerprint())))
        .isTrue();
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
