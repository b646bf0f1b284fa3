package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.ledger.DeviceUsage;
import dev.bolo.server.testing.Burst;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import mockwebserver3.MockResponse;
import okhttp3.Request;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Quota through the real gateway: reserved before the provider is called, charged once per unique
 * success, never for replays or failures, and never overspent by concurrent notes.
 */
class QuotaTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Every note is a 2 s, 16 kHz mono WAV, so the server measures its length itself. */
  private static final int NOTE_MILLIS = 2_000;

  /** Five notes' worth of trial audio. */
  private static final int TRIAL_SECONDS = 5 * NOTE_MILLIS / 1000;

  private static final Duration ANSWERS_WITHIN = Duration.ofSeconds(30);

  @RegisterExtension
  final OpenAiGateway fixture =
      new OpenAiGateway(Map.of("BOLO_TRIAL_SECONDS", Integer.toString(TRIAL_SECONDS)));

  @Test
  void twentyConcurrentDistinctNotesAgainstAQuotaForFiveLetFiveThroughAndTheRestResendUntil402()
      throws Exception {
    List<Request> notes = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      notes.add(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note(100 + i)));
    }
    // Hold the provider so no note is charged before all have been decided: only reservations
    // can keep the burst within the quota.
    fixture.provider().hold();
    List<Gateway.Reply> replies;
    try (Burst burst = Burst.send(fixture.gateway(), notes)) {
      Await.until(() -> burst.answered() == 15, () -> burst.answered() + " answered");
      // The five granted notes may still be on their way to the provider on a loaded machine.
      Await.until(
          () -> fixture.provider().calls() == 5,
          () -> fixture.provider().calls() + " provider calls");
      fixture.provider().release();
      replies = burst.replies(ANSWERS_WITHIN);
    }

    assertThat(replies).filteredOn(r -> r.status() == 200).hasSize(5);
    List<Gateway.Reply> waiting = replies.stream().filter(r -> r.status() != 200).toList();
    // The seconds were held, not spent, while they were refused: a 402 then could have dropped a
    // note that fits after all (a held note may fail). They are told to resend instead.
    assertThat(waiting)
        .hasSize(15)
        .allSatisfy(r -> assertThat(r.status()).isEqualTo(503))
        .allSatisfy(r -> assertThat(r.retryAfter()).isNotNull());
    assertThat(waiting).extracting(QuotaTest::code).containsOnly("server_unavailable");
    // Resent once the five are charged, they are spent for good.
    for (Request note : notes) {
      Gateway.Reply resend = fixture.gateway().send(note);
      assertThat(resend.status()).isIn(200, 402);
    }
    assertThat(fixture.provider().calls()).isEqualTo(5);
    assertThat(fixture.ledger().chargedMillis("alpha")).isEqualTo(5L * NOTE_MILLIS);
    DeviceUsage usage = fixture.ledger().usage("alpha");
    assertThat(usage.requests()).isEqualTo(40);
    assertThat(usage.uniqueNotes()).as("only transcribed notes count as unique").isEqualTo(5);
    assertThat(usage.chargedMillis()).isEqualTo(5L * NOTE_MILLIS);
    assertThat(usage.replays()).isEqualTo(5);
  }

  @Test
  void twentyConcurrentCopiesOfOneNoteCallTheProviderOnceAndChargeOnce() throws Exception {
    byte[] note = note(200);
    List<Request> copies = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      copies.add(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note));
    }
    fixture.provider().hold();
    List<Gateway.Reply> replies;
    try (Burst burst = Burst.send(fixture.gateway(), copies)) {
      Await.until(
          () -> fixture.provider().calls() >= 1,
          () -> fixture.provider().calls() + " provider calls");
      fixture.provider().release();
      replies = burst.replies(ANSWERS_WITHIN);
    }

    assertThat(replies).allSatisfy(r -> assertThat(r.status()).as(r.body()).isEqualTo(200));
    assertThat(replies).filteredOn(r -> deduplicated(r)).hasSize(19);
    assertThat(fixture.provider().calls()).isEqualTo(1);
    assertThat(fixture.ledger().chargedMillis("alpha")).isEqualTo(NOTE_MILLIS);
    DeviceUsage usage = fixture.ledger().usage("alpha");
    assertThat(usage.requests()).isEqualTo(20);
    assertThat(usage.uniqueNotes()).isEqualTo(1);
    assertThat(usage.replays()).isEqualTo(19);
    assertThat(usage.chargedMillis()).isEqualTo(NOTE_MILLIS);
    assertThat(usage.savedMillis()).isEqualTo(19L * NOTE_MILLIS);
  }

  @Test
  void aDeviceOutOfQuotaGets402WithoutAProviderCall() throws Exception {
    for (int i = 0; i < 5; i++) {
      assertThat(
              fixture
                  .gateway()
                  .send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note(300 + i)))
                  .status())
          .isEqualTo(200);
    }
    assertThat(fixture.provider().calls()).isEqualTo(5);

    Gateway.Reply refused =
        fixture.gateway().send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note(399)));

    assertThat(refused.status()).isEqualTo(402);
    assertThat(code(refused)).isEqualTo("quota_exhausted");
    assertThat(fixture.provider().calls()).isEqualTo(5);
    assertThat(fixture.ledger().chargedMillis("alpha")).isEqualTo(5L * NOTE_MILLIS);
    // Another device's trial is its own.
    assertThat(
            fixture
                .gateway()
                .send(fixture.gateway().nativeUpload(Gateway.TOKEN_B, note(399)))
                .status())
        .isEqualTo(200);
  }

  /**
   * A note of one 20 ms Opus frame is measured from its frames' timestamps as 0 ms (the first block
   * of {@code bolo-audio}'s {@code opus-no-duration.webm}, alone in its cluster).
   */
  @Test
  void aDeviceWithNoSecondsLeftGets402EvenForANoteThatMeasuresZero() throws Exception {
    spendAlphasQuota();
    byte[] oneFrame;
    try (java.io.InputStream in =
        java.util.Objects.requireNonNull(
            QuotaTest.class.getResourceAsStream("opus-one-frame.webm"))) {
      oneFrame = in.readAllBytes();
    }

    Gateway.Reply refused =
        fixture.gateway().send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, oneFrame));

    assertThat(refused.status()).as(refused.body()).isEqualTo(402);
    assertThat(fixture.provider().calls()).isEqualTo(5);
  }

  @Test
  void aDeviceWithNoSecondsLeftGetsNothingForAWavWithNoSample() throws Exception {
    spendAlphasQuota();

    Gateway.Reply refused =
        fixture
            .gateway()
            .send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, TestAudio.wav(0, 800)));

    assertThat(refused.status()).as(refused.body()).isEqualTo(400);
    assertThat(code(refused)).isEqualTo("empty_audio");
    assertThat(fixture.provider().calls()).isEqualTo(5);
    assertThat(fixture.ledger().chargedMillis("alpha")).isEqualTo(5L * NOTE_MILLIS);
  }

  @Test
  void aWavWhoseLengthCannotBeMeasuredIsChargedByItsSize() throws Exception {
    byte[] unmeasurable = TestAudio.wav(500, 801);
    unmeasurable(unmeasurable);

    Gateway.Reply reply =
        fixture.gateway().send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, unmeasurable));

    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    assertThat(fixture.ledger().chargedMillis("alpha")).isPositive();
    assertThat(fixture.ledger().usage("alpha").chargedMillis())
        .isEqualTo(fixture.ledger().chargedMillis("alpha"));
  }

  @Test
  void anUnmeasurableNoteClaimedAsZeroSecondsIsChargedItsSizeEstimateAndALargerClaimAsClaimed()
      throws Exception {
    // 500 ms of 16-bit 16 kHz audio: 16,044 bytes, which the 4,000 B/s estimate makes 4,011 ms.
    byte[] claimedZero = TestAudio.wav(500, 811);
    unmeasurable(claimedZero);
    byte[] claimedMore = TestAudio.wav(500, 812);
    unmeasurable(claimedMore);

    Gateway.Reply zero =
        fixture
            .gateway()
            .send(
                fixture
                    .gateway()
                    .nativeUpload(Gateway.TOKEN_A, claimedZero)
                    .newBuilder()
                    .header("X-Bolo-Audio-Duration-Ms", "0")
                    .build());
    long afterZero = fixture.ledger().chargedMillis("alpha");
    Gateway.Reply more =
        fixture
            .gateway()
            .send(
                fixture
                    .gateway()
                    .nativeUpload(Gateway.TOKEN_A, claimedMore)
                    .newBuilder()
                    .header("X-Bolo-Audio-Duration-Ms", "4500")
                    .build());

    assertThat(zero.status()).as(zero.body()).isEqualTo(200);
    assertThat(afterZero).isEqualTo(claimedZero.length * 1000L / 4_000);
    assertThat(more.status()).as(more.body()).isEqualTo(200);
    assertThat(fixture.ledger().chargedMillis("alpha") - afterZero).isEqualTo(4_500);
  }

  @Test
  void aWavWhoseLengthCannotBeMeasuredDoesNotSlipPastTheLastSecondsOfQuota() throws Exception {
    for (int i = 0; i < 4; i++) {
      fixture.gateway().send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note(810 + i)));
    }
    byte[] unmeasurable = TestAudio.wav(5 * NOTE_MILLIS, 815);
    unmeasurable(unmeasurable);

    Gateway.Reply refused =
        fixture.gateway().send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, unmeasurable));

    assertThat(refused.status()).as(refused.body()).isEqualTo(402);
    assertThat(fixture.provider().calls()).isEqualTo(4);
  }

  @Test
  void aResendOfAnAnsweredNoteIsServedEvenWhenTheQuotaIsSpent() throws Exception {
    byte[] last = note(400);
    for (int i = 0; i < 4; i++) {
      fixture.gateway().send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note(401 + i)));
    }
    assertThat(
            fixture.gateway().send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, last)).status())
        .isEqualTo(200);

    Gateway.Reply resend =
        fixture.gateway().send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, last));

    assertThat(resend.status()).isEqualTo(200);
    assertThat(deduplicated(resend)).isTrue();
    assertThat(fixture.provider().calls()).isEqualTo(5);
    assertThat(fixture.ledger().chargedMillis("alpha")).isEqualTo(5L * NOTE_MILLIS);
  }

  @Test
  void aPerDeviceQuotaSetByTheOperatorAppliesAtOnce() throws Exception {
    assertThat(fixture.ledger().ledger().setQuota("bravo", NOTE_MILLIS / 1000)).isTrue();

    assertThat(
            fixture
                .gateway()
                .send(fixture.gateway().nativeUpload(Gateway.TOKEN_B, note(500)))
                .status())
        .isEqualTo(200);
    Gateway.Reply refused =
        fixture.gateway().send(fixture.gateway().nativeUpload(Gateway.TOKEN_B, note(501)));

    assertThat(refused.status()).isEqualTo(402);
    assertThat(fixture.provider().calls()).isEqualTo(1);
    assertThat(fixture.ledger().ledger().setQuota("bravo", 0)).isTrue();
    assertThat(
            fixture
                .gateway()
                .send(fixture.gateway().nativeUpload(Gateway.TOKEN_B, note(501)))
                .status())
        .as("0 = unlimited")
        .isEqualTo(200);
    assertThat(fixture.ledger().chargedMillis("bravo")).isEqualTo(2L * NOTE_MILLIS);
  }

  @Test
  void replaysAreNeverCharged() throws Exception {
    byte[] note = note(600);
    Gateway.Reply first =
        fixture.gateway().send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note));
    assertThat(first.status()).isEqualTo(200);
    for (int i = 0; i < 3; i++) {
      Gateway.Reply again =
          fixture.gateway().send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note));
      assertThat(again.status()).isEqualTo(200);
      assertThat(deduplicated(again)).isTrue();
    }

    assertThat(fixture.provider().calls()).isEqualTo(1);
    assertThat(fixture.ledger().chargedMillis("alpha")).isEqualTo(NOTE_MILLIS);
    DeviceUsage usage = fixture.ledger().usage("alpha");
    assertThat(usage.chargedMillis()).isEqualTo(NOTE_MILLIS);
    assertThat(usage.savedMillis()).isEqualTo(3L * NOTE_MILLIS);
  }

  @Test
  void aFailedTranscriptionIsNotChargedAndGivesItsReservationBack() throws Exception {
    // Exactly one note's worth, so a reservation the failure kept would refuse the retry.
    assertThat(fixture.ledger().ledger().setQuota("alpha", NOTE_MILLIS / 1000)).isTrue();
    byte[] note = note(700);
    fixture
        .provider()
        .enqueue(
            new MockResponse.Builder()
                .code(503)
                .setHeader("Retry-After", "3")
                .body("{\"error\":{\"message\":\"overloaded\"}}")
                .build());

    Gateway.Reply failed =
        fixture.gateway().send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note));

    assertThat(failed.status()).isEqualTo(503);
    assertThat(fixture.ledger().chargedMillis("alpha")).isZero();
    assertThat(fixture.ledger().usage("alpha").chargedMillis()).isZero();

    Gateway.Reply retried =
        fixture.gateway().send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note));

    assertThat(retried.status()).as(retried.body()).isEqualTo(200);
    assertThat(fixture.provider().calls()).isEqualTo(2);
    assertThat(fixture.ledger().chargedMillis("alpha")).isEqualTo(NOTE_MILLIS);
    assertThat(fixture.ledger().usage("alpha").chargedMillis()).isEqualTo(NOTE_MILLIS);
  }

  private void spendAlphasQuota() throws IOException {
    for (int i = 0; i < 5; i++) {
      assertThat(
              fixture
                  .gateway()
                  .send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, note(900 + i)))
                  .status())
          .isEqualTo(200);
    }
    assertThat(fixture.ledger().chargedMillis("alpha")).isEqualTo(TRIAL_SECONDS * 1000L);
  }

  /**
   * Marks a WAV as compressed (IMA ADPCM) in its fmt chunk: the server does not read that codec's
   * block layout, so the note's length cannot be measured.
   */
  private static void unmeasurable(byte[] wav) {
    ByteBuffer.wrap(wav).order(ByteOrder.LITTLE_ENDIAN).putShort(20, (short) 0x0011);
  }

  private static byte[] note(long seed) {
    return TestAudio.wav(NOTE_MILLIS, seed);
  }

  private static String code(Gateway.Reply reply) {
    try {
      return JSON.readTree(reply.body()).get("code").asText();
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + reply.body(), e);
    }
  }

  private static boolean deduplicated(Gateway.Reply reply) {
    try {
      JsonNode body = JSON.readTree(reply.body());
      return body.get("deduplicated").asBoolean();
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + reply.body(), e);
    }
  }
}
