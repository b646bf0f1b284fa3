package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.health.Readiness;
import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.Ledger;
import dev.bolo.server.ledger.RateDecision;
import dev.bolo.server.ledger.Reservation;
import dev.bolo.server.ledger.UsageRecord;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.LogCapture;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Directories;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Guessing tokens against a real gateway (issue 45, item 6): a client address gets {@code
 * BOLO_WRONG_TOKENS_PER_MINUTE} wrong tokens a minute, device or admin, and then 429 {@code
 * rate_limited} with {@code Retry-After} without a ledger lookup, while known devices, from that
 * address and from any other, go on as before.
 */
class WrongTokenLimitTest {

  /** The default of {@code BOLO_WRONG_TOKENS_PER_MINUTE}. */
  private static final int PER_MINUTE = 10;

  private static final int GUESSES = 1_000;
  private static final String ADMIN_TOKEN = "admin-token-0123456789abcdef";
  private static final String GUESSER = "127.0.0.1";
  private static final String ELSEWHERE = "127.0.0.2";

  private final AtomicInteger lookups = new AtomicInteger();
  private @Nullable Path dataDir;
  private @Nullable FakeProvider provider;
  private @Nullable Gateway gateway;

  @BeforeEach
  void start() throws IOException {
    dataDir = Files.createTempDirectory("bolo-wrong-tokens-");
    provider = new FakeProvider();
    Map<String, String> env = new HashMap<>(Gateway.openAiEnvironment(provider, dataDir));
    env.put("BOLO_ADMIN_TOKEN", ADMIN_TOKEN);
    gateway = Gateway.withLedgerView(env, CountingLookups::new);
  }

  @AfterEach
  void stop() throws IOException {
    try (FakeProvider closeProvider = provider;
        Gateway closeGateway = gateway) {
      // closed in reverse order: the gateway, then its provider
    } finally {
      if (dataDir != null) {
        Directories.deleteTree(dataDir);
      }
    }
  }

  @Test
  void aThousandWrongTokensFromOneAddressAreRefusedAfterTheBoundAndKnownDevicesGoOn()
      throws Exception {
    Gateway gateway = gateway();
    OkHttpClient guesser = gateway.clientFrom(GUESSER);
    OkHttpClient elsewhere = gateway.clientFrom(ELSEWHERE);
    // alpha has used its token from the guesser's address (behind the same NAT, say) before.
    assertThat(lookup(guesser, Gateway.TOKEN_A).status()).isEqualTo(404);
    int lookupsBefore = lookups.get();

    Map<Integer, Integer> statuses = new TreeMap<>();
    Answer last = new Answer(0, "", null);
    String logged;
    try (LogCapture logs = LogCapture.start()) {
      for (int i = 0; i < GUESSES; i++) {
        last = lookup(guesser, "guess-" + i + "-0123456789abcdef");
        statuses.merge(last.status(), 1, Integer::sum);
      }
      logged = logs.text();
    }

    assertThat(statuses).isEqualTo(Map.of(401, PER_MINUTE, 429, GUESSES - PER_MINUTE));
    assertThat(logged)
        .containsOnlyOnce("127.0.0.1 sent 10 wrong tokens within a minute")
        .doesNotContain("guess-");
    assertThat(last.body()).contains("\"code\":\"rate_limited\"", "too many wrong tokens");
    assertThat(last.retryAfter()).isEqualTo("60");
    assertThat(lookups.get() - lookupsBefore).as("ledger lookups of the guesses").isEqualTo(10);
    // A known device from the guesser's address, and known and unknown tokens from elsewhere.
    assertThat(lookup(guesser, Gateway.TOKEN_A).status()).isEqualTo(404);
    assertThat(upload(guesser, Gateway.TOKEN_A).status()).isEqualTo(200);
    assertThat(lookup(elsewhere, Gateway.TOKEN_B).status()).isEqualTo(404);
    assertThat(lookup(elsewhere, "guess-from-elsewhere-0123456789").status()).isEqualTo(401);
    // bravo was never right from the guesser's address: it waits there like a guess.
    assertThat(lookup(guesser, Gateway.TOKEN_B).status()).isEqualTo(429);

    gateway.advance(Duration.ofSeconds(60));

    assertThat(lookup(guesser, Gateway.TOKEN_B).status()).isEqualTo(404);
    assertThat(lookup(guesser, "guess-after-a-minute-0123456789").status()).isEqualTo(401);
  }

  @Test
  void aThousandWrongAdminTokensFromOneAddressAreRefusedAfterTheBound() throws Exception {
    Gateway gateway = gateway();
    OkHttpClient guesser = gateway.clientFrom(GUESSER);
    OkHttpClient elsewhere = gateway.clientFrom(ELSEWHERE);
    assertThat(live(guesser, ADMIN_TOKEN).status()).isEqualTo(200);

    Map<Integer, Integer> statuses = new TreeMap<>();
    Answer last = new Answer(0, "", null);
    for (int i = 0; i < GUESSES; i++) {
      last = live(guesser, "admin-guess-" + i + "-0123456789");
      statuses.merge(last.status(), 1, Integer::sum);
    }

    assertThat(statuses).isEqualTo(Map.of(401, PER_MINUTE, 429, GUESSES - PER_MINUTE));
    assertThat(last.body()).contains("\"code\":\"rate_limited\"");
    assertThat(last.retryAfter()).isEqualTo("60");
    assertThat(live(elsewhere, ADMIN_TOKEN).status()).isEqualTo(200);
    // One admin token: a pass for it from the guesser's address would answer the guess.
    assertThat(live(guesser, ADMIN_TOKEN).status()).isEqualTo(429);
    assertThat(lookup(guesser, Gateway.TOKEN_B).status())
        .as("wrong admin and device tokens count together")
        .isEqualTo(429);

    gateway.advance(Duration.ofSeconds(60));

    assertThat(live(guesser, ADMIN_TOKEN).status()).isEqualTo(200);
  }

  private record Answer(int status, String body, @Nullable String retryAfter) {}

  private Answer lookup(OkHttpClient client, String token) throws IOException {
    return send(
        client,
        new Request.Builder()
            .url(gateway().url("/v1/transcriptions/" + "ab".repeat(32)))
            .header("Authorization", "Bearer " + token)
            .build());
  }

  private Answer live(OkHttpClient client, String token) throws IOException {
    return send(
        client,
        new Request.Builder()
            .url(gateway().url("/admin/api/live"))
            .header("Authorization", "Bearer " + token)
            .build());
  }

  private Answer upload(OkHttpClient client, String token) throws IOException {
    return send(client, gateway().nativeUpload(token, TestAudio.wav(1_000, 45)));
  }

  private static Answer send(OkHttpClient client, Request request) throws IOException {
    try (Response response = client.newCall(request).execute()) {
      return new Answer(response.code(), response.body().string(), response.header("Retry-After"));
    }
  }

  private Gateway gateway() {
    return java.util.Objects.requireNonNull(gateway, "started");
  }

  /** The gateway's ledger, counting the token lookups that reach it. */
  private final class CountingLookups implements Ledger {
    private final Ledger real;

    CountingLookups(Ledger real) {
      this.real = real;
    }

    @Override
    public Optional<Device> authenticate(String token) {
      lookups.incrementAndGet();
      return real.authenticate(token);
    }

    @Override
    public Reservation reserve(Device device, String workKey, long audioMillis, Duration deadline) {
      return real.reserve(device, workKey, audioMillis, deadline);
    }

    @Override
    public dev.bolo.server.ledger.Charge commit(Reservation.Granted reservation, long audioMillis) {
      return real.commit(reservation, audioMillis);
    }

    @Override
    public void release(Reservation.Granted reservation) {
      real.release(reservation);
    }

    @Override
    public void record(UsageRecord usage) {
      real.record(usage);
    }

    @Override
    public RateDecision admit(Device device) {
      return real.admit(device);
    }

    @Override
    public Readiness readiness() {
      return real.readiness();
    }
  }
}
