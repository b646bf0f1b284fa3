package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.audio.AudioDurations;
import dev.bolo.audio.Measurement;
import dev.bolo.audio.SeekableSource;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import okhttp3.MediaType;
import okhttp3.MultipartBody;
import okhttp3.Request;
import okhttp3.RequestBody;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The gateway charges the length it measures from the note's container, whatever the client claims,
 * and refuses a note whose headers contradict its bytes as {@code invalid_audio}.
 */
class MeasuredLengthTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Notes above this many bytes are spooled to disk and measured there; below, in memory. */
  private static final int IN_MEMORY_BYTES = 8 * 1024;

  /** Each reference note lasts about 3.5 s: one fits the trial, two do not. */
  private static final int TRIAL_SECONDS = 5;

  @RegisterExtension
  final OpenAiGateway fixture =
      new OpenAiGateway(
          Map.of(
              "BOLO_UPLOAD_MEMORY_BYTES",
              Integer.toString(IN_MEMORY_BYTES),
              "BOLO_TRIAL_SECONDS",
              Integer.toString(TRIAL_SECONDS)));

  @ParameterizedTest
  @ValueSource(
      strings = {
        // 12 KB: spooled to disk, its moov after the media data.
        "aac-moov-at-end.m4a",
        // 5.5 KB: kept in memory.
        "opus.ogg",
        "opus-no-duration.webm",
        "cbr-noxing-16k.mp3"
      })
  void aNonWavNoteClaimedAsZeroSecondsIsAnsweredAndChargedItsMeasuredLength(String file)
      throws Exception {
    byte[] note = resource(file);
    long measured = measuredMillis(note);
    assertThat(measured).isGreaterThan(3000);

    Gateway.Reply reply = uploadClaimingZeroMillis(note);

    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    assertThat(JSON.readTree(reply.body()).get("duration_ms").asLong()).isEqualTo(measured);
    assertThat(fixture.ledger().chargedMillis("alpha")).isEqualTo(measured);
  }

  @Test
  void distinctM4aNotesClaimedAsZeroSecondsGet402OnceTheTrialIsSpent() throws Exception {
    byte[] m4a = resource("aac-moov-at-end.m4a");
    long measured = measuredMillis(m4a);
    int mdat = indexOf(m4a, "mdat");
    int[] statuses = new int[6];
    for (int i = 0; i < statuses.length; i++) {
      byte[] note = m4a.clone();
      // A different byte in the media data: another note to the gateway, the same length.
      note[mdat + 64 + i] ^= 0x5a;
      statuses[i] = uploadClaimingZeroMillis(note).status();
    }

    assertThat(statuses).containsExactly(200, 402, 402, 402, 402, 402);
    assertThat(fixture.provider().calls()).isEqualTo(1);
    assertThat(fixture.ledger().chargedMillis("alpha")).isEqualTo(measured);
  }

  @Test
  void aWavWhoseByteRateContradictsItsFormatIsRefusedAsInvalidAudio() throws Exception {
    byte[] wav = TestAudio.wav(2000, 7);
    // The byte rate that once made a note free: 0xFFFFFFFF bytes per second.
    ByteBuffer.wrap(wav).order(ByteOrder.LITTLE_ENDIAN).putInt(28, 0xFFFFFFFF);

    Gateway.Reply reply =
        fixture.gateway().send(fixture.gateway().nativeUpload(Gateway.TOKEN_A, wav));

    assertThat(reply.status()).as(reply.body()).isEqualTo(400);
    JsonNode body = JSON.readTree(reply.body());
    assertThat(body.get("code").asText()).isEqualTo("invalid_audio");
    assertThat(body.get("error").asText()).contains("byte rate 4294967295");
    assertThat(fixture.provider().calls()).isZero();
    assertThat(fixture.ledger().chargedMillis("alpha")).isZero();
  }

  @Test
  void theOpenAiEndpointRefusesAContradictoryWavInOpenAisShape() throws Exception {
    byte[] wav = TestAudio.wav(1000, 8);
    // A block size of 0 bytes: no decoder can play it, and no length follows from it.
    ByteBuffer.wrap(wav).order(ByteOrder.LITTLE_ENDIAN).putShort(32, (short) 0);
    Request request =
        new Request.Builder()
            .url(fixture.gateway().url("/v1/audio/transcriptions"))
            .header("Authorization", "Bearer " + Gateway.TOKEN_A)
            .post(
                new MultipartBody.Builder()
                    .setType(MultipartBody.FORM)
                    .addFormDataPart("model", "whisper-1")
                    .addFormDataPart(
                        "file", "note.wav", RequestBody.create(wav, MediaType.get("audio/wav")))
                    .build())
            .build();

    Gateway.Reply reply = fixture.gateway().send(request);

    assertThat(reply.status()).as(reply.body()).isEqualTo(400);
    JsonNode error = JSON.readTree(reply.body()).get("error");
    assertThat(error.get("type").asText()).isEqualTo("invalid_request_error");
    assertThat(error.get("code").asText()).isEqualTo("invalid_audio");
    assertThat(error.get("param").asText()).isEqualTo("file");
    assertThat(fixture.provider().calls()).isZero();
  }

  private static long measuredMillis(byte[] note) throws IOException {
    Measurement measurement = AudioDurations.measure(SeekableSource.of(note));
    assertThat(measurement).isInstanceOf(Measurement.Measured.class);
    return ((Measurement.Measured) measurement).millis();
  }

  private static int indexOf(byte[] bytes, String type) {
    byte[] want = type.getBytes(StandardCharsets.US_ASCII);
    for (int i = 0; i + want.length <= bytes.length; i++) {
      if (Arrays.equals(bytes, i, i + want.length, want, 0, want.length)) {
        return i;
      }
    }
    throw new IllegalArgumentException(type + " not found");
  }

  private static byte[] resource(String file) throws IOException {
    try (InputStream in =
        Objects.requireNonNull(
            MeasuredLengthTest.class.getResourceAsStream("/audio/" + file), file)) {
      return in.readAllBytes();
    }
  }

  /** Uploads {@code note} as alpha, with a client that claims it lasts 0 ms. */
  private Gateway.Reply uploadClaimingZeroMillis(byte[] note) throws IOException {
    Gateway gateway = fixture.gateway();
    return gateway.send(
        gateway
            .nativeUpload(Gateway.TOKEN_A, note)
            .newBuilder()
            .header("X-Bolo-Audio-Duration-Ms", "0")
            .build());
  }
}
