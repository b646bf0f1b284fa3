package dev.bolo.server.dedup;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The store contract on a Redis whose default user is off and whose only user is an ACL user with a
 * password, given in the URL ({@code redis://user:password@host:port}) as operators do; a wrong
 * password is refused at once.
 */
class RedisAclDedupStoreTest extends RedisStoreContract {

  private static @Nullable EmbeddedRedis redis;

  @BeforeAll
  static void startRedis() {
    redis = EmbeddedRedis.startWith("user default off", "user bolo on >s3cret-0123 ~* &* +@all");
  }

  @AfterAll
  static void stopRedis() {
    if (redis != null) {
      redis.close();
    }
  }

  private static String url(String password) {
    if (redis == null) {
      throw new IllegalStateException("Redis starts before every test");
    }
    return "redis://bolo:" + password + "@127.0.0.1:" + redis.port();
  }

  @Test
  void aWrongPasswordIsRefused() {
    assertThatThrownBy(
            () ->
                RedisDedupStore.connect(
                    RedisDedupStoreTest.options(url("wrong"), Duration.ofMinutes(1)),
                    System::nanoTime,
                    () -> {}))
        .hasStackTraceContaining("WRONGPASS");
  }

  @Override
  String redisUrl() {
    return url("s3cret-0123");
  }
}
