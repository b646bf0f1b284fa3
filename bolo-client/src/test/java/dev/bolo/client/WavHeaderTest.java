package dev.bolo.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class WavHeaderTest {

  /** A PCM WAV file: 16 kHz mono 16-bit has a byte rate of 32000. */
  static byte[] wav(int dataBytes, long declaredDataBytes, boolean listChunk) {
    int listBytes = listChunk ? 8 + 5 + 1 : 0;
    ByteBuffer b =
        ByteBuffer.allocate(12 + 24 + listBytes + 8 + dataBytes).order(ByteOrder.LITTLE_ENDIAN);
    b.put("RIFF".getBytes(StandardCharsets.US_ASCII)).putInt(b.capacity() - 8);
    b.put("WAVE".getBytes(StandardCharsets.US_ASCII));
    b.put("fmt ".getBytes(StandardCharsets.US_ASCII)).putInt(16);
    b.putShort((short) 1).putShort((short) 1).putInt(16000).putInt(32000);
    b.putShort((short) 2).putShort((short) 16);
    if (listChunk) {
      // An odd-sized chunk, padded to even length as RIFF requires.
      b.put("LIST".getBytes(StandardCharsets.US_ASCII)).putInt(5).put(new byte[6]);
    }
    b.put("data".getBytes(StandardCharsets.US_ASCII)).putInt((int) declaredDataBytes);
    return b.array();
  }

  @Test
  void durationIsDataSizeOverByteRate() {
    byte[] wav = wav(48000, 48000, false);

    assertThat(WavHeader.durationMs(wav, wav.length, wav.length)).isEqualTo(1500);
  }

  @Test
  void chunksBeforeTheDataChunkAreSkippedWithTheirPadding() {
    byte[] wav = wav(32000, 32000, true);

    assertThat(WavHeader.durationMs(wav, wav.length, wav.length)).isEqualTo(1000);
  }

  @Test
  void aDataSizeNeverFixedByTheRecorderIsBoundedByTheFile() {
    byte[] wav = wav(16000, 0xFFFFFFFFL, false);

    assertThat(WavHeader.durationMs(wav, wav.length, wav.length)).isEqualTo(500);
  }

  @Test
  void somethingElseHasNoDuration() {
    byte[] mp3 =
        "ID3\u0004\u0000\u0000\u0000\u0000\u0000\u0000 not a wav file"
            .getBytes(StandardCharsets.ISO_8859_1);
    byte[] truncated = java.util.Arrays.copyOf(wav(100, 100, false), 30);

    assertThat(WavHeader.durationMs(mp3, mp3.length, mp3.length)).isEqualTo(-1);
    assertThat(WavHeader.durationMs(truncated, truncated.length, 1000)).isEqualTo(-1);
  }
}
