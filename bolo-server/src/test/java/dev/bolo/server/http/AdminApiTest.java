package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.Burst;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.LogCapture;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The operator API under {@code /admin/api/} against a real gateway: bearer auth with {@code
 * BOLO_ADMIN_TOKEN}, devices, usage over time and the live figures (docs/admin-api.md).
 */
class AdminApiTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ADMIN_TOKEN = "admin-token-0123456789abcdef";
  private static final MediaType JSON_TYPE = MediaType.get("application/json");
  private static final Duration ANSWERS_WITHIN = Duration.ofSeconds(30);

  @RegisterExtension final OpenAiGateway fixture = OpenAiGateway.onDemand(Map.of());

  private Gateway start(Map<String, String> extra) {
    Map<String, String> env = new HashMap<>(Map.of("BOLO_ADMIN_TOKEN", ADMIN_TOKEN));
    env.putAll(extra);
    return fixture.start(env);
  }

  private record Answer(int status, JsonNode body, @Nullable String contentType) {}

  private Answer call(String method, String path, @Nullable String token, @Nullable String body)
      throws IOException {
    Request.Builder request = new Request.Builder().url(gateway().url(path));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    boolean needsBody = method.equals("POST") || method.equals("PUT");
    request.method(
        method,
        body != null
            ? RequestBody.create(body, JSON_TYPE)
            : needsBody ? RequestBody.create(new byte[0]) : null);
    try (var response = gateway().client().newCall(request.build()).execute()) {
      String text = response.body().string();
      return new Answer(
          response.code(),
          text.isEmpty() ? JSON.createObjectNode() : JSON.readTree(text),
          response.header("Content-Type"));
    }
  }

  private Answer admin(String method, String path, @Nullable String body) throws IOException {
    return call(method, path, ADMIN_TOKEN, body);
  }

  private Gateway gateway() {
    return fixture.gateway();
  }

  @Test
  void withoutAnAdminTokenTheDashboardAndItsApiAnswer404InJson() throws Exception {
    fixture.start(Map.of());

    for (String path : List.of("/admin", "/admin/admin.js", "/admin/api/devices")) {
      Answer answer = call("GET", path, ADMIN_TOKEN, null);

      assertThat(answer.status()).as(path).isEqualTo(404);
      assertThat(answer.body().path("code").asText()).as(path).isEqualTo("not_found");
      assertThat(answer.body().path("error").asText()).as(path).contains("BOLO_ADMIN_TOKEN");
    }
  }

  @Test
  void theApiRefusesAMissingOrWrongAdminTokenAndADeviceTokenWith401() throws Exception {
    start(Map.of());

    for (String token : new String[] {null, "", "wrong-token-0123456789", Gateway.TOKEN_A}) {
      Answer answer = call("GET", "/admin/api/devices", token, null);

      assertThat(answer.status()).as("token %s", token).isEqualTo(401);
      assertThat(answer.body().path("code").asText()).isEqualTo("unauthorized");
      assertThat(answer.body().path("error").asText()).contains("admin token");
      assertThat(answer.body().has("request_id")).isTrue();
    }
    // Nothing changed for a refused request.
    assertThat(call("POST", "/admin/api/devices", "wrong", "{\"name\":\"x\"}").status())
        .isEqualTo(401);
    // The QR code of a token is drawn for the admin only.
    assertThat(call("POST", "/admin/api/qr", Gateway.TOKEN_A, "{\"text\":\"x\"}").status())
        .isEqualTo(401);
    assertThat(admin("GET", "/admin/api/devices", null).body().findValuesAsText("name"))
        .containsExactly("alpha", "bravo");
  }

  @Test
  void theTokenIsNeverLoggedNorTheAddedDevicesToken() throws Exception {
    try (LogCapture logs = LogCapture.start()) {
      start(Map.of());
      call("GET", "/admin/api/devices", "wrong-token-0123456789", null);
      String token =
          admin("POST", "/admin/api/devices", "{\"name\":\"kitchen\"}")
              .body()
              .path("token")
              .asText();

      assertThat(token).isNotEmpty();
      assertThat(logs.text()).doesNotContain(ADMIN_TOKEN).doesNotContain(token);
    }
  }

  @Test
  void anAddedDeviceGetsItsTokenOnceUploadsWithItAndIsListedWithItsQuota() throws Exception {
    start(Map.of("BOLO_TRIAL_SECONDS", "60"));

    Answer added = admin("POST", "/admin/api/devices", "{\"name\":\"kitchen\"}");

    assertThat(added.status()).isEqualTo(201);
    assertThat(added.body().path("name").asText()).isEqualTo("kitchen");
    String token = added.body().path("token").asText();
    assertThat(token).hasSizeGreaterThan(20);
    Gateway.Reply upload = gateway().send(gateway().nativeUpload(token, TestAudio.wav(2_000, 1)));
    assertThat(upload.status()).isEqualTo(200);

    JsonNode kitchen = device(admin("GET", "/admin/api/devices", null).body(), "kitchen");
    assertThat(kitchen.path("revoked_at").isNull()).isTrue();
    assertThat(kitchen.path("quota_seconds").asDouble()).isEqualTo(60.0);
    assertThat(kitchen.path("quota_source").asText()).isEqualTo("trial");
    assertThat(kitchen.path("charged_seconds").asDouble()).isEqualTo(2.0);
    assertThat(kitchen.path("remaining_seconds").asDouble()).isEqualTo(58.0);
    assertThat(kitchen.path("configured_only").asBoolean()).isFalse();
    assertThat(Instant.parse(kitchen.path("created_at").asText())).isBeforeOrEqualTo(Instant.now());
    assertThat(kitchen.has("token")).isFalse();
    assertThat(
            device(admin("GET", "/admin/api/devices", null).body(), "alpha")
                .path("configured_only")
                .asBoolean())
        .isTrue();
  }

  @Test
  void aTakenOrMalformedNameIsRefusedInTheNativeErrorShape() throws Exception {
    start(Map.of());
    admin("POST", "/admin/api/devices", "{\"name\":\"kitchen\"}");

    Answer taken = admin("POST", "/admin/api/devices", "{\"name\":\"kitchen\"}");
    assertThat(taken.status()).isEqualTo(409);
    assertThat(taken.body().path("code").asText()).isEqualTo("device_exists");

    for (String body :
        List.of(
            "{\"name\":\"has space\"}",
            "{\"name\":\"" + "x".repeat(65) + "\"}",
            "{\"name\":7}",
            "{}",
            "[\"kitchen\"]",
            "not json",
            "{\"name\":\"" + "y".repeat(2_000) + "\"}")) {
      Answer refused = admin("POST", "/admin/api/devices", body);

      assertThat(refused.status()).as(body).isEqualTo(400);
      assertThat(refused.body().path("code").asText()).as(body).isEqualTo("invalid_parameter");
      assertThat(refused.body().path("error").asText()).as(body).isNotBlank();
      assertThat(refused.contentType()).startsWith("application/json");
    }
    // The QR code's text likewise: an address of printable ASCII, at most 512 characters.
    for (String body :
        List.of(
            "{\"text\":7}",
            "{\"text\":\"\"}",
            "{\"text\":\"caf\u00e9\"}",
            "{\"text\":\"" + "z".repeat(513) + "\"}",
            "not json")) {
      Answer refused = admin("POST", "/admin/api/qr", body);

      assertThat(refused.status()).as(body).isEqualTo(400);
      assertThat(refused.body().path("code").asText()).as(body).isEqualTo("invalid_parameter");
      assertThat(refused.body().path("error").asText()).as(body).isNotBlank();
      assertThat(refused.contentType()).startsWith("application/json");
    }
  }

  @Test
  void anAddedDeviceGetsAWebhookSecretAndARotationAnswersANewOneNeverListed() throws Exception {
    start(Map.of());
    Answer added = admin("POST", "/admin/api/devices", "{\"name\":\"kitchen\"}");
    String first = added.body().path("webhook_secret").asText();

    Answer rotated = admin("POST", "/admin/api/devices/kitchen/webhook-secret", null);

    assertThat(first).startsWith("whsec_");
    assertThat(rotated.status()).isEqualTo(201);
    String second = rotated.body().path("webhook_secret").asText();
    assertThat(second).startsWith("whsec_").isNotEqualTo(first);
    assertThat(Instant.parse(rotated.body().path("previous_signs_until").asText()))
        .isAfter(Instant.now().plus(Duration.ofHours(23)));
    assertThat(admin("GET", "/admin/api/devices", null).body().toString())
        .doesNotContain(first)
        .doesNotContain(second)
        .doesNotContain("whsec_");
    assertThat(admin("POST", "/admin/api/devices/nobody/webhook-secret", null).status())
        .isEqualTo(404);
    assertThat(call("POST", "/admin/api/devices/kitchen/webhook-secret", null, null).status())
        .isEqualTo(401);
  }

  @Test
  void revokingADeviceMakesItsTokenRefusedAtOnce() throws Exception {
    start(Map.of());
    String token =
        admin("POST", "/admin/api/devices", "{\"name\":\"kitchen\"}").body().path("token").asText();
    assertThat(gateway().send(gateway().nativeUpload(token, TestAudio.wav(500, 2))).status())
        .isEqualTo(200);

    Answer revoked = admin("POST", "/admin/api/devices/kitchen/revoke", null);

    assertThat(revoked.status()).isEqualTo(200);
    assertThat(revoked.body().path("revoked_at").isTextual()).isTrue();
    Gateway.Reply refused = gateway().send(gateway().nativeUpload(token, TestAudio.wav(500, 3)));
    assertThat(refused.status()).isEqualTo(401);
    assertThat(admin("POST", "/admin/api/devices/nobody/revoke", null).status()).isEqualTo(404);
    assertThat(admin("POST", "/admin/api/devices/bad%20name/revoke", null).status()).isEqualTo(404);
  }

  @Test
  void aQuotaShowsInTheRemainingSecondsAndZeroMeansUnlimited() throws Exception {
    start(Map.of());
    admin("POST", "/admin/api/devices", "{\"name\":\"kitchen\"}");

    Answer set = admin("PUT", "/admin/api/devices/kitchen/quota", "{\"seconds\":90}");

    assertThat(set.status()).isEqualTo(200);
    assertThat(set.body().path("quota_seconds").asDouble()).isEqualTo(90.0);
    assertThat(set.body().path("quota_source").asText()).isEqualTo("device");
    assertThat(set.body().path("remaining_seconds").asDouble()).isEqualTo(90.0);
    Answer unlimited = admin("PUT", "/admin/api/devices/kitchen/quota", "{\"seconds\":0}");
    assertThat(unlimited.body().path("quota_seconds").asDouble()).isZero();
    assertThat(unlimited.body().path("remaining_seconds").isNull()).isTrue();

    for (String body :
        List.of("{\"seconds\":-1}", "{\"seconds\":1.5}", "{\"seconds\":\"9\"}", "{}")) {
      Answer refused = admin("PUT", "/admin/api/devices/kitchen/quota", body);
      assertThat(refused.status()).as(body).isEqualTo(400);
      assertThat(refused.body().path("code").asText()).isEqualTo("invalid_parameter");
    }
    assertThat(admin("PUT", "/admin/api/devices/nobody/quota", "{\"seconds\":5}").status())
        .isEqualTo(404);
  }

  @Test
  void usageCountsRequestsUniqueNotesJoinedAndCachedReplaysAndTheSecondsSaved() throws Exception {
    start(Map.of());
    FakeProvider upstream = provider();
    byte[] note = TestAudio.wav(2_000, 7);
    upstream.hold();
    List<Gateway.Reply> firstTwo;
    try (Burst burst =
        Burst.send(
            gateway(),
            List.of(
                gateway().nativeUpload(Gateway.TOKEN_A, note),
                gateway().nativeUpload(Gateway.TOKEN_A, note)))) {
      // Both copies are in: one holds the provider's only call, the other waits for it (both are
      // counted as waiting for the work's outcome; a copy still reading its body is not yet).
      Await.until(
          () -> live().path("dedup_waiting_copies").asInt() == 2 && upstream.calls() == 1,
          () -> live() + ", provider calls " + upstream.calls());
      JsonNode during = live();
      assertThat(during.path("requests_in_flight").asInt()).isEqualTo(2);
      assertThat(during.path("work_running").asInt()).isEqualTo(1);
      upstream.release();
      firstTwo = burst.replies(ANSWERS_WITHIN);
    }
    assertThat(firstTwo).extracting(Gateway.Reply::status).containsExactly(200, 200);
    Gateway.Reply third = gateway().send(gateway().nativeUpload(Gateway.TOKEN_A, note));
    assertThat(third.replayed()).isEqualTo("true");
    assertThat(gateway().send(gateway().nativeUpload(Gateway.TOKEN_B, note)).status())
        .isEqualTo(200);

    JsonNode alpha = admin("GET", "/admin/api/usage?range=hour&device=alpha", null).body();

    assertThat(alpha.path("range").asText()).isEqualTo("hour");
    assertThat(alpha.path("bucket_seconds").asInt()).isEqualTo(60);
    assertThat(alpha.path("buckets")).hasSize(60);
    JsonNode total = alpha.path("total");
    assertThat(total.path("requests").asInt()).isEqualTo(3);
    assertThat(total.path("unique_notes").asInt()).isEqualTo(1);
    assertThat(total.path("replays_joined").asInt()).isEqualTo(1);
    assertThat(total.path("replays_cached").asInt()).isEqualTo(1);
    assertThat(total.path("charged_seconds").asDouble()).isEqualTo(2.0);
    assertThat(total.path("saved_seconds").asDouble()).isEqualTo(4.0);
    assertThat(total.path("redundancy_rate").asDouble()).isCloseTo(2 / 3.0, within());
    int requestsInBuckets = 0;
    for (JsonNode bucket : alpha.path("buckets")) {
      requestsInBuckets += bucket.path("requests").asInt();
    }
    assertThat(requestsInBuckets).isEqualTo(3);
    assertThat(alpha.path("devices").findValuesAsText("device")).containsExactly("alpha");

    JsonNode all = admin("GET", "/admin/api/usage?range=day", null).body();
    assertThat(all.path("device").isNull()).isTrue();
    assertThat(all.path("buckets")).hasSize(24);
    assertThat(all.path("total").path("requests").asInt()).isEqualTo(4);
    assertThat(all.path("total").path("unique_notes").asInt()).isEqualTo(2);
    assertThat(all.path("total").path("charged_seconds").asDouble()).isEqualTo(4.0);
    assertThat(all.path("devices").findValuesAsText("device")).containsExactly("alpha", "bravo");
    assertThat(admin("GET", "/admin/api/usage?range=30d", null).body().path("buckets")).hasSize(30);
  }

  @Test
  void aBadRangeOrDeviceIsRefusedAndAnUnknownDeviceIsNotFound() throws Exception {
    start(Map.of());

    Answer range = admin("GET", "/admin/api/usage?range=week", null);
    assertThat(range.status()).isEqualTo(400);
    assertThat(range.body().path("code").asText()).isEqualTo("invalid_parameter");
    assertThat(range.body().path("error").asText()).contains("hour, day or 30d");
    assertThat(admin("GET", "/admin/api/usage?device=a%20b", null).status()).isEqualTo(400);
    assertThat(admin("GET", "/admin/api/usage?device=nobody", null).status()).isEqualTo(404);
    assertThat(admin("DELETE", "/admin/api/devices", null).status()).isEqualTo(405);
  }

  @Test
  void liveShowsEngineLatencyAndEachComponentsReadiness() throws Exception {
    start(Map.of());
    assertThat(live().path("upstream").path("calls").asInt()).isZero();
    assertThat(live().path("upstream").path("p50_seconds").isNull()).isTrue();

    // 300 ms on the gateway's ticker, however long the machine takes for it.
    provider().takes(Duration.ofMillis(300), gateway()::advance);
    assertThat(
            gateway().send(gateway().nativeUpload(Gateway.TOKEN_A, TestAudio.wav(500, 9))).status())
        .isEqualTo(200);

    JsonNode live = live();
    assertThat(live.path("upstream").path("calls").asInt()).isEqualTo(1);
    // One call of 300 ms: the estimate lies in its histogram bucket (250 ms, 500 ms].
    assertThat(live.path("upstream").path("p50_seconds").asDouble())
        .isGreaterThan(0.25)
        .isLessThanOrEqualTo(0.5);
    assertThat(live.path("upstream").path("p99_seconds").asDouble())
        .isGreaterThan(0.25)
        .isLessThanOrEqualTo(0.5);
    assertThat(live.path("offline_pool").isNull()).isTrue();
    assertThat(live.path("readiness").path("store").path("state").asText()).isEqualTo("ready");
    assertThat(live.path("readiness").path("ledger").path("state").asText()).isEqualTo("ready");
    assertThat(live.path("requests_in_flight").asInt()).isZero();
    assertThat(Instant.parse(live.path("at").asText())).isBeforeOrEqualTo(Instant.now());
  }

  @Test
  void thePageAndItsFilesAreServedUnderAStrictContentSecurityPolicy() throws Exception {
    start(Map.of());

    for (String path : List.of("/admin", "/admin/admin.js", "/admin/admin.css")) {
      try (var response =
          gateway()
              .client()
              .newCall(new Request.Builder().url(gateway().url(path)).build())
              .execute()) {
        assertThat(response.code()).as(path).isEqualTo(200);
        String policy = response.header("Content-Security-Policy");
        assertThat(policy).contains("default-src 'self'").contains("connect-src 'self'");
        assertThat(policy).doesNotContain("unsafe-inline").doesNotContain("unsafe-eval");
        assertThat(response.header("X-Content-Type-Options")).isEqualTo("nosniff");
        String body = response.body().string();
        if (path.equals("/admin")) {
          assertThat(response.header("Content-Type")).startsWith("text/html");
          // No inline script or style for the policy to block.
          assertThat(body).doesNotContain("<script>").doesNotContain("style=");
          assertThat(body).doesNotContain("onclick=").doesNotContain("http://").contains("<main>");
        }
      }
    }
  }

  @Test
  void everyFieldAndRouteTheApiAnswersIsInItsDocument() throws Exception {
    start(Map.of());
    String doc = java.nio.file.Files.readString(Path.of("..", "docs", "admin-api.md"));
    gateway().send(gateway().nativeUpload(Gateway.TOKEN_A, TestAudio.wav(500, 11)));
    List<JsonNode> answers =
        List.of(
            admin("GET", "/admin/api/devices", null).body(),
            admin("POST", "/admin/api/devices", "{\"name\":\"kitchen\"}").body(),
            admin("PUT", "/admin/api/devices/kitchen/quota", "{\"seconds\":5}").body(),
            admin("POST", "/admin/api/devices/kitchen/webhook-secret", null).body(),
            admin("GET", "/admin/api/usage?range=hour", null).body(),
            live(),
            admin("GET", "/admin/api/connect", null).body(),
            admin("GET", "/admin/api/jobs", null).body(),
            admin("POST", "/admin/api/webhooks/msg_none/send-again", null).body(),
            admin("GET", "/admin/api/usage?range=year", null).body());
    java.util.Set<String> fields = new java.util.TreeSet<>();
    for (JsonNode answer : answers) {
      collectFields(answer, fields);
    }
    assertThat(fields).hasSizeGreaterThan(30);

    // Named in a table (`field`) or in a JSON sketch ("field").
    assertThat(fields)
        .allSatisfy(
            field ->
                assertThat(doc.contains("`" + field + "`") || doc.contains('"' + field + '"'))
                    .as(field)
                    .isTrue());
    for (String route :
        List.of(
            "GET /admin/api/devices",
            "POST /admin/api/devices",
            "POST /admin/api/devices/{name}/revoke",
            "PUT /admin/api/devices/{name}/quota",
            "POST /admin/api/devices/{name}/webhook-secret",
            "GET /admin/api/usage",
            "GET /admin/api/live",
            "GET /admin/api/connect",
            "POST /admin/api/qr",
            "GET /admin/api/jobs",
            "POST /admin/api/webhooks/{id}/send-again")) {
      assertThat(doc).contains("`" + route);
    }
  }

  private static void collectFields(JsonNode node, java.util.Set<String> fields) {
    if (node.isArray()) {
      node.forEach(element -> collectFields(element, fields));
    }
    node.properties()
        .forEach(
            entry -> {
              fields.add(entry.getKey());
              collectFields(entry.getValue(), fields);
            });
  }

  private JsonNode live() {
    try {
      return admin("GET", "/admin/api/live", null).body();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private FakeProvider provider() {
    return fixture.provider();
  }

  private static JsonNode device(JsonNode devices, String name) {
    for (JsonNode device : devices.path("devices")) {
      if (device.path("name").asText().equals(name)) {
        return device;
      }
    }
    throw new AssertionError("no device " + name + " in " + devices);
  }

  private static org.assertj.core.data.Offset<Double> within() {
    return org.assertj.core.data.Offset.offset(1e-9);
  }
}
