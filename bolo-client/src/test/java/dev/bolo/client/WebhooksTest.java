package dev.bolo.client;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The SDK's verifier against the Standard Webhooks reference libraries' own test vector (which the
 * gateway's signer reproduces, and the npm {@code standardwebhooks} package verifies).
 */
class WebhooksTest {

  private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  private static final String ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
  private static final Instant SENT = Instant.ofEpochSecond(1614265330);
  private static final byte[] BODY = "{\"test\": 2432232314}".getBytes(StandardCharsets.UTF_8);
  private static final String SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

  private static Map<String, String> headers(String signature) {
    return Map.of(
        "webhook-id", ID,
        "webhook-timestamp", Long.toString(SENT.getEpochSecond()),
        "webhook-signature", signature);
  }

  @Test
  void theSpecificationsVectorVerifies() {
    assertThatCode(() -> Webhooks.verify(headers(SIGNATURE), BODY, SECRET, SENT))
        .doesNotThrowAnyException();
  }

  @Test
  void headerNamesAreMatchedInAnyCaseAndTheSecretsPrefixMayBeLeftOut() {
    Map<String, String> capitalised =
        Map.of(
            "Webhook-Id", ID,
            "WEBHOOK-TIMESTAMP", Long.toString(SENT.getEpochSecond()),
            "Webhook-Signature", SIGNATURE);

    assertThatCode(() -> Webhooks.verify(capitalised, BODY, SECRET.substring(6), SENT))
        .doesNotThrowAnyException();
  }

  @Test
  void oneMatchingSignatureAmongSeveralIsEnoughAndOtherVersionsAreSkipped() {
    String during = "v1,bm9wZQ== v1a,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE= " + SIGNATURE;

    assertThatCode(() -> Webhooks.verify(headers(during), BODY, SECRET, SENT))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> Webhooks.verify(headers("v1,bm9wZQ== v2,abc"), BODY, SECRET, SENT))
        .isInstanceOf(WebhookVerificationException.class)
        .hasMessageContaining("no v1 signature");
  }

  @Test
  void aTimestampWithinFiveMinutesEitherWayPassesAndBeyondIsRefused() {
    assertThatCode(() -> Webhooks.verify(headers(SIGNATURE), BODY, SECRET, SENT.plusSeconds(300)))
        .doesNotThrowAnyException();
    assertThatCode(() -> Webhooks.verify(headers(SIGNATURE), BODY, SECRET, SENT.minusSeconds(300)))
        .doesNotThrowAnyException();
    assertThatThrownBy(
            () -> Webhooks.verify(headers(SIGNATURE), BODY, SECRET, SENT.plusSeconds(301)))
        .isInstanceOf(WebhookVerificationException.class)
        .hasMessageContaining("301 s old");
    assertThatThrownBy(
            () -> Webhooks.verify(headers(SIGNATURE), BODY, SECRET, SENT.minusSeconds(301)))
        .isInstanceOf(WebhookVerificationException.class)
        .hasMessageContaining("ahead");
  }

  @Test
  void anAlteredBodyIdOrTimestampOrAnotherSecretIsRefused() {
    byte[] altered = "{\"test\": 2432232315}".getBytes(StandardCharsets.UTF_8);
    Map<String, String> otherId =
        Map.of(
            "webhook-id",
            ID + "x",
            "webhook-timestamp",
            Long.toString(SENT.getEpochSecond()),
            "webhook-signature",
            SIGNATURE);
    Map<String, String> otherTime =
        Map.of(
            "webhook-id", ID,
            "webhook-timestamp", Long.toString(SENT.getEpochSecond() + 1),
            "webhook-signature", SIGNATURE);
    String another = "whsec_" + java.util.Base64.getEncoder().encodeToString(new byte[32]);

    for (Runnable forged :
        new Runnable[] {
          () -> verifyQuietly(headers(SIGNATURE), altered, SECRET),
          () -> verifyQuietly(otherId, BODY, SECRET),
          () -> verifyQuietly(otherTime, BODY, SECRET),
          () -> verifyQuietly(headers(SIGNATURE), BODY, another),
        }) {
      assertThatThrownBy(forged::run).hasCauseInstanceOf(WebhookVerificationException.class);
    }
  }

  @Test
  void aMissingHeaderOrANonNumericTimestampIsNamed() {
    assertThatThrownBy(
            () ->
                Webhooks.verify(
                    Map.of("webhook-id", ID, "webhook-signature", SIGNATURE), BODY, SECRET, SENT))
        .isInstanceOf(WebhookVerificationException.class)
        .hasMessageContaining("webhook-timestamp");
    assertThatThrownBy(
            () ->
                Webhooks.verify(
                    Map.of(
                        "webhook-id", ID,
                        "webhook-timestamp", "soon",
                        "webhook-signature", SIGNATURE),
                    BODY,
                    SECRET,
                    SENT))
        .isInstanceOf(WebhookVerificationException.class)
        .hasMessageContaining("soon");
  }

  @Test
  void aSecretThatIsNotBase64IsTheCallersMistake() {
    assertThatThrownBy(() -> Webhooks.verify(headers(SIGNATURE), BODY, "whsec_!!!", SENT))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static void verifyQuietly(Map<String, String> headers, byte[] body, String secret) {
    try {
      Webhooks.verify(headers, body, secret, SENT);
    } catch (WebhookVerificationException e) {
      throw new IllegalStateException(e);
    }
  }
}
