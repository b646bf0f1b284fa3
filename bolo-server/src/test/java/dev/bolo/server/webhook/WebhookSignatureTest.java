package dev.bolo.server.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class WebhookSignatureTest {

  /** The Standard Webhooks reference libraries' own test vector. */
  static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

  static final String ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
  static final Instant TIMESTAMP = Instant.ofEpochSecond(1614265330);
  static final byte[] BODY = "{\"test\": 2432232314}".getBytes(StandardCharsets.UTF_8);
  static final String SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

  @Test
  void theSpecificationsTestVectorIsReproducedExactly() {
    assertThat(WebhookSignature.header(ID, TIMESTAMP, BODY, List.of(SECRET))).isEqualTo(SIGNATURE);
  }

  @Test
  void theTimestampSignedIsWholeSecondsEvenWhenTheInstantHasMore() {
    assertThat(WebhookSignature.header(ID, TIMESTAMP.plusMillis(999), BODY, List.of(SECRET)))
        .isEqualTo(SIGNATURE);
  }

  @Test
  void twoSecretsDuringARotationGiveTwoSignaturesSeparatedByOneSpaceNewestFirst() {
    String other = "whsec_" + java.util.Base64.getEncoder().encodeToString(new byte[32]);

    String header = WebhookSignature.header(ID, TIMESTAMP, BODY, List.of(other, SECRET));

    String[] signatures = header.split(" ");
    assertThat(signatures).hasSize(2);
    assertThat(signatures[0]).startsWith("v1,").isNotEqualTo(SIGNATURE);
    assertThat(signatures[1]).isEqualTo(SIGNATURE);
  }

  @Test
  void anyChangedByteOfIdTimestampOrBodyChangesTheSignature() {
    byte[] changed = BODY.clone();
    changed[changed.length - 2] ^= 1;

    assertThat(WebhookSignature.header(ID + "x", TIMESTAMP, BODY, List.of(SECRET)))
        .isNotEqualTo(SIGNATURE);
    assertThat(WebhookSignature.header(ID, TIMESTAMP.plusSeconds(1), BODY, List.of(SECRET)))
        .isNotEqualTo(SIGNATURE);
    assertThat(WebhookSignature.header(ID, TIMESTAMP, changed, List.of(SECRET)))
        .isNotEqualTo(SIGNATURE);
  }

  @Test
  void aSecretWithoutItsPrefixOrNotBase64OrNoneAtAllIsABug() {
    assertThatThrownBy(() -> WebhookSignature.header(ID, TIMESTAMP, BODY, List.of("abc")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> WebhookSignature.header(ID, TIMESTAMP, BODY, List.of("whsec_!!")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> WebhookSignature.header(ID, TIMESTAMP, BODY, List.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
