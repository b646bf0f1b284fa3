package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.audio.AudioDurations;
import dev.bolo.audio.Measurement;
import dev.bolo.audio.SeekableSource;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.LedgerProbe;
import dev.bolo.server.testing.LyingNotes;
import dev.bolo.server.testing.OfflineGateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import java.io.IOException;
import java.util.Map;
import mockwebserver3.MockResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A note is charged the largest of the length its container's header gives, the length of the
 * samples the gateway decoded and the duration its provider reported (PROTOCOL.md rule 8). A minute
 * of audio whose header claims one second, in each container bolo-audio measures, is charged the
 * minute: on the default gateway, whose offline engine decodes it; on an OpenAI-compatible provider
 * that reports its duration; and when the gateway decodes it to cut it into pieces; and a device's
 * trial is spent by the minute, not the second. The header once decided alone, checked only for
 * plausibility against the size.
 */
class HeaderThatLiesTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The minute as decoded: codecs' priming and padding move it by some tens of milliseconds. */
  private static final long LEAST_DECODED_MILLIS = 59_000;

  private static final long MOST_DECODED_MILLIS = 61_000;

  @RegisterExtension static final OfflineGateway offline = new OfflineGateway();

  @RegisterExtension final OpenAiGateway provider = OpenAiGateway.onDemand(Map.of());

  @ParameterizedTest
  @EnumSource(LyingNotes.Container.class)
  void theOfflineEngineChargesTheMinuteItDecodedNotTheSecondTheHeaderClaims(
      LyingNotes.Container container) throws Exception {
    byte[] note = lyingNote(container);
    Gateway gateway = offline.gateway();
    try (LedgerProbe ledger = LedgerProbe.open(offline.dataDir(), gateway)) {
      long before = ledger.chargedMillis("alpha");

      Gateway.Reply reply = gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, note));

      assertThat(reply.status()).as(reply.body()).isEqualTo(200);
      long answered = JSON.readTree(reply.body()).path("duration_ms").asLong();
      assertThat(answered).isBetween(LEAST_DECODED_MILLIS, MOST_DECODED_MILLIS);
      assertThat(ledger.chargedMillis("alpha") - before).isEqualTo(answered);
    }
  }

  @ParameterizedTest
  @EnumSource(LyingNotes.Container.class)
  void aProviderThatReportsTheMinuteInVerboseJsonHasTheNoteChargedTheMinute(
      LyingNotes.Container container) throws Exception {
    byte[] note = lyingNote(container);
    Gateway gateway = provider.start(Map.of());
    provider.provider().answerWith(request -> verboseJson(60.0));

    Gateway.Reply reply =
        gateway.send(
            Gateway.openAiUploadRequest(
                gateway.url("/v1/audio/transcriptions"),
                Gateway.TOKEN_A,
                note,
                "model",
                "whisper-1",
                "response_format",
                "verbose_json"));

    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    assertThat(JSON.readTree(reply.body()).path("duration").asDouble()).isEqualTo(60.0);
    assertThat(provider.ledger().chargedMillis("alpha")).isEqualTo(LyingNotes.MINUTE_MILLIS);
  }

  @Test
  void aMinuteClaimingASecondSpendsAFiveSecondTrialAndTheNextNoteIsRefused() throws Exception {
    byte[] note = lyingNote(LyingNotes.Container.M4A);
    Gateway gateway = provider.start(Map.of("BOLO_TRIAL_SECONDS", "5"));
    provider.provider().answerWith(request -> verboseJson(60.0));

    Gateway.Reply minute = gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, note));
    Gateway.Reply second =
        gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, TestAudio.wav(1_000, 7)));

    assertThat(minute.status()).as(minute.body()).isEqualTo(200);
    assertThat(JSON.readTree(minute.body()).path("duration_ms").asLong())
        .isEqualTo(LyingNotes.MINUTE_MILLIS);
    // The hold was the header's second; the charge is the minute, past what the trial had left.
    assertThat(second.status()).as(second.body()).isEqualTo(402);
    assertThat(provider.ledger().chargedMillis("alpha")).isEqualTo(LyingNotes.MINUTE_MILLIS);
  }

  @Test
  void aNoteDecodedToBeCutIntoPiecesIsChargedItsDecodedMinute() throws Exception {
    // 1.9 MB of WAV: over a provider that takes 1 MiB a request, so the gateway decodes the note
    // and sends it in pieces; the stand-in reports no duration.
    byte[] note = lyingNote(LyingNotes.Container.WAV);
    Gateway gateway = provider.start(Map.of("BOLO_OPENAI_MAX_REQUEST_BYTES", "1048576"));

    Gateway.Reply reply = gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, note));

    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    JsonNode answer = JSON.readTree(reply.body());
    assertThat(answer.path("duration_ms").asLong()).isEqualTo(LyingNotes.MINUTE_MILLIS);
    // What reached the provider was a piece the gateway cut and wrote as FLAC, not the WAV.
    assertThat(FakeProvider.bodyText(provider.provider().takeRequest())).contains("fLaC");
    assertThat(provider.ledger().chargedMillis("alpha")).isEqualTo(LyingNotes.MINUTE_MILLIS);
  }

  /** OpenAI's verbose_json for a note of {@code seconds}, as the stand-in provider heard it. */
  private static MockResponse verboseJson(double seconds) {
    return new MockResponse.Builder()
        .code(200)
        .setHeader("Content-Type", "application/json")
        .body(
            "{\"task\":\"transcribe\",\"language\":\"english\",\"duration\":"
                + seconds
                + ",\"text\":\"Bolo measures the length of every voice note.\",\"segments\":[]}")
        .build();
  }

  /**
   * The note, after checking that its header does claim about a second, as the gateway reads it.
   */
  private static byte[] lyingNote(LyingNotes.Container container) throws IOException {
    byte[] note = LyingNotes.claimingOneSecond(container);
    Measurement claimed = AudioDurations.measure(SeekableSource.of(note));
    assertThat(claimed)
        .as("what the %s header claims", container)
        .isInstanceOfSatisfying(
            Measurement.Measured.class,
            measured -> assertThat(measured.millis()).isBetween(900L, 1100L));
    return note;
  }
}
