package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.client.BoloClient;
import dev.bolo.client.Outcome;
import dev.bolo.client.TranscriptionOptions;
import dev.bolo.client.VoiceNote;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The SDK against the real gateway and a fake provider: resending is safe because the gateway
 * de-duplicates, and the provider is paid for one successful call per note.
 */
class EndToEndTest {

  @RegisterExtension final GatewayExtension gateway = new GatewayExtension();

  private BoloClient.Builder client() {
    return gateway.client();
  }

  @Test
  void aProviderThatFailsTwiceThenSucceedsIsPaidForOneSuccess() {
    gateway.failFirst(2);
    Outcome outcome =
        client()
            .build()
            .transcribe(VoiceNote.ofBytes(wav(1000, 1), "a.wav"), TranscriptionOptions.defaults());
    assertThat(outcome)
        .isInstanceOfSatisfying(
            Outcome.Transcribed.class,
            t -> {
              assertThat(t.transcript().text()).isEqualTo("note number 3");
              assertThat(t.attempts()).isEqualTo(3);
            });
    assertThat(gateway.calls()).isEqualTo(3);
    assertThat(gateway.successes()).isEqualTo(1);
  }

  @Test
  void aClientThatTimesOutAndResendsGetsTheTextFromTheOneCall() {
    gateway.delay(Duration.ofSeconds(3));
    BoloClient impatient =
        client()
            .uploadTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1))
            .build();
    Outcome outcome =
        impatient.transcribe(
            VoiceNote.ofBytes(wav(1000, 2), "b.wav"), TranscriptionOptions.defaults());
    assertThat(outcome)
        .isInstanceOfSatisfying(
            Outcome.Transcribed.class,
            t -> {
              assertThat(t.transcript().text()).isEqualTo("note number 1");
              assertThat(t.transcript().deduplicated()).isTrue();
              assertThat(t.attempts()).isGreaterThan(1);
            });
    assertThat(gateway.calls()).isEqualTo(1);
  }

  @Test
  void aResendOfADeliveredNoteIsAReplayNotASecondCharge() {
    BoloClient bolo = client().build();
    byte[] audio = wav(1000, 3);
    Outcome first =
        bolo.transcribe(VoiceNote.ofBytes(audio, "c.wav"), TranscriptionOptions.defaults());
    Outcome again =
        bolo.transcribe(VoiceNote.ofBytes(audio, "c.wav"), TranscriptionOptions.defaults());
    assertThat(first).isInstanceOf(Outcome.Transcribed.class);
    assertThat(again)
        .isInstanceOfSatisfying(
            Outcome.Transcribed.class, t -> assertThat(t.transcript().deduplicated()).isTrue());
    assertThat(gateway.calls()).isEqualTo(1);
  }

  /** A 16 kHz mono 16-bit WAV of {@code millis} of seeded noise. */
  static byte[] wav(int millis, long seed) {
    int data = 32 * millis;
    ByteBuffer buffer = ByteBuffer.allocate(44 + data).order(ByteOrder.LITTLE_ENDIAN);
    buffer.put("RIFF".getBytes(StandardCharsets.US_ASCII)).putInt(36 + data);
    buffer.put("WAVE".getBytes(StandardCharsets.US_ASCII));
    buffer.put("fmt ".getBytes(StandardCharsets.US_ASCII)).putInt(16);
    buffer.putShort((short) 1).putShort((short) 1).putInt(16_000).putInt(32_000);
    buffer.putShort((short) 2).putShort((short) 16);
    buffer.put("data".getBytes(StandardCharsets.US_ASCII)).putInt(data);
    java.util.Random random = new java.util.Random(seed);
    while (buffer.remaining() >= 2) {
      buffer.putShort((short) (random.nextGaussian() * 800));
    }
    return buffer.array();
  }
}
