package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.LedgerProbe;
import dev.bolo.server.testing.TestAudio;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The offline engine takes notes up to {@code BOLO_OFFLINE_MAX_SECONDS}: a longer one is refused
 * with 413 before anything is decoded, so a small file claiming hours of audio (8-bit, 1 kHz) can
 * no longer exhaust the heap.
 */
class OfflineNoteLengthTest {

  @TempDir Path dataDir;

  @Test
  void aNoteLongerThanTheOfflineEngineTakesIs413NamingTheLimitAndNothingIsCharged()
      throws Exception {
    try (Gateway gateway =
        Gateway.withEnvironment(
            Map.of(
                "BOLO_PORT", "0",
                "BOLO_ENGINE", "offline",
                "BOLO_OFFLINE_MAX_SECONDS", "60",
                "BOLO_DATA_DIR", dataDir.toString(),
                "BOLO_DEVICE_TOKENS", "alpha=" + Gateway.TOKEN_A))) {
      // 200 KB of 8-bit mono at 1 kHz: 200 s of audio.
      byte[] note = eightBitWav(200_000, 1_000);

      Gateway.Reply reply = gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, note));

      assertThat(reply.status()).as(reply.body()).isEqualTo(413);
      assertThat(reply.body())
          .contains("\"code\":\"audio_too_long\"")
          .contains("200 s long")
          .contains("up to 60 s")
          .contains("openai and gemini");
      // Refused from its measured length: the engine never decoded a second of it.
      assertThat(gateway.app().metrics().find("bolo_upstream_calls_total").counters()).isEmpty();
      // A note within the limit is not refused for its length.
      Gateway.Reply shorter =
          gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, TestAudio.wav(1_000, 7)));
      assertThat(shorter.body()).doesNotContain("audio_too_long");
    }
    try (LedgerProbe operator = LedgerProbe.open(dataDir)) {
      assertThat(operator.usage("alpha").chargedMillis()).isLessThan(200_000);
    }
  }

  private static byte[] eightBitWav(int samples, int rate) {
    ByteBuffer b = ByteBuffer.allocate(44 + samples).order(ByteOrder.LITTLE_ENDIAN);
    b.put("RIFF".getBytes(java.nio.charset.StandardCharsets.US_ASCII)).putInt(36 + samples);
    b.put("WAVE".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    b.put("fmt ".getBytes(java.nio.charset.StandardCharsets.US_ASCII)).putInt(16);
    b.putShort((short) 1).putShort((short) 1).putInt(rate).putInt(rate);
    b.putShort((short) 1).putShort((short) 8);
    b.put("data".getBytes(java.nio.charset.StandardCharsets.US_ASCII)).putInt(samples);
    java.util.Random random = new java.util.Random(5);
    while (b.hasRemaining()) {
      b.put((byte) (128 + random.nextInt(20) - 10));
    }
    return b.array();
  }
}
