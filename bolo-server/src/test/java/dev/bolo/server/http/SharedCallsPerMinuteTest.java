package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.dedup.EmbeddedRedis;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.TestAudio;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code BOLO_ENGINE_<NAME>_MAX_PER_MINUTE} counts the calls of every instance on the same Redis:
 * two gateways together start no more calls a minute at the primary than it allows, and the rest go
 * to the backup.
 */
class SharedCallsPerMinuteTest {

  @TempDir Path dir;

  @Test
  void twoInstancesShareTheirEnginesCallsPerMinute() throws Exception {
    try (EmbeddedRedis redis = EmbeddedRedis.start();
        FakeProvider primary = new FakeProvider();
        FakeProvider backup = new FakeProvider()) {
      Map<String, String> env = new HashMap<>();
      env.put("BOLO_STORE", "redis");
      env.put("BOLO_REDIS_URL", redis.url());
      env.put("BOLO_ENGINES", "primary,backup");
      env.put("BOLO_ENGINE_PRIMARY_KIND", "openai");
      env.put("BOLO_ENGINE_PRIMARY_BASE_URL", primary.baseUrl());
      env.put("BOLO_ENGINE_PRIMARY_MAX_PER_MINUTE", "3");
      env.put("BOLO_ENGINE_BACKUP_KIND", "openai");
      env.put("BOLO_ENGINE_BACKUP_BASE_URL", backup.baseUrl());
      env.put("BOLO_ROUTES", "whisper-1=primary/whisper-1,backup/whisper-1");
      try (Gateway one = Gateway.openAi(primary, dir.resolve("one"), env);
          Gateway two = Gateway.openAi(primary, dir.resolve("two"), env)) {
        for (int n = 0; n < 6; n++) {
          Gateway gateway = n % 2 == 0 ? one : two;
          Gateway.Reply reply =
              gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, TestAudio.wav(700, 500 + n)));
          assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        }
      }
      assertThat(primary.calls()).as("three a minute, over both instances").isEqualTo(3);
      assertThat(backup.calls()).isEqualTo(3);
    }
  }
}
