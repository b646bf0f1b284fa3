package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import java.io.IOException;
import java.util.stream.Stream;
import mockwebserver3.MockResponse;
import okhttp3.Request;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every number and length a client sends is bounded before it is used: out of range or overlong is
 * 400 invalid_parameter at once, short, and the provider is never called.
 */
class ClientNumbersTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension final OpenAiGateway fixture = new OpenAiGateway();

  private Gateway gateway() {
    return fixture.gateway();
  }

  private FakeProvider provider() {
    return fixture.provider();
  }

  static Stream<Arguments> overlongFields() {
    return Stream.of(
        Arguments.of("temperature", "1e-999999999"),
        Arguments.of("temperature", "0." + "1".repeat(40)),
        Arguments.of("temperature", "2"),
        Arguments.of("language", "en" + "-abcdefgh".repeat(500)),
        Arguments.of("prompt", "p".repeat(5000)),
        Arguments.of("response_format", "json".repeat(2000)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("overlongFields")
  // A bound on a hang, not on speed: expanding 1e-999999999 or parsing a 40-digit fraction by
  // hand would not end, or not without a gigabyte of digits.
  @Timeout(60)
  void anOutOfRangeOrOverlongFieldIsRefusedQuicklyWithoutCallingTheProvider(
      String field, String value) throws Exception {
    Gateway.Reply reply =
        gateway()
            .send(gateway().nativeUpload(Gateway.TOKEN_A, TestAudio.wav(200, 1), field, value));

    JsonNode body = assertInvalid(reply);
    assertThat(body.get("error").asText()).contains(field).hasSizeLessThan(200);
    assertThat(provider().calls()).isZero();
  }

  @ParameterizedTest(name = "X-Bolo-Audio-Duration-Ms: {0}")
  @org.junit.jupiter.params.provider.ValueSource(
      strings = {"-1", "+5", "86400001", "99999999999999999999", "1e3", "12.5"})
  void aClaimedDurationOutsideZeroToOneDayIsRefused(String claimed) throws Exception {
    Reply body = sendWithDuration(claimed);
    assertThat(body.error()).startsWith("X-Bolo-Audio-Duration-Ms must be whole milliseconds");
    assertThat(provider().calls()).isZero();
  }

  @Test
  void aClaimedDurationOfThousandsOfDigitsIsNotEchoedBack() throws Exception {
    Reply body = sendWithDuration("7".repeat(4000));
    assertThat(body.error()).hasSizeLessThan(120);
    assertThat(provider().calls()).isZero();
  }

  @Test
  void aProvidersHugeRetryAfterReachesThePhoneAsAnHour() throws Exception {
    provider()
        .enqueue(
            new MockResponse.Builder()
                .code(503)
                .setHeader("Retry-After", "9223372036854775807")
                .setHeader("Content-Type", "application/json")
                .body("{\"error\":{\"message\":\"overloaded\"}}")
                .build());

    Gateway.Reply reply =
        gateway().send(gateway().nativeUpload(Gateway.TOKEN_A, TestAudio.wav(200, 2)));

    assertThat(reply.status()).as(reply.body()).isEqualTo(503);
    assertThat(JSON.readTree(reply.body()).get("code").asText()).isEqualTo("upstream_unavailable");
    assertThat(reply.retryAfter()).isEqualTo("3600");
  }

  private record Reply(String error) {}

  private Reply sendWithDuration(String claimed) throws Exception {
    Request request =
        gateway()
            .nativeUpload(Gateway.TOKEN_A, TestAudio.wav(200, 3))
            .newBuilder()
            .header("X-Bolo-Audio-Duration-Ms", claimed)
            .build();
    return new Reply(assertInvalid(gateway().send(request)).get("error").asText());
  }

  private static JsonNode assertInvalid(Gateway.Reply reply) throws IOException {
    assertThat(reply.status()).as(reply.body()).isEqualTo(400);
    JsonNode body = JSON.readTree(reply.body());
    assertThat(body.get("code").asText()).isEqualTo("invalid_parameter");
    return body;
  }
}
