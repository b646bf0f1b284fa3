package dev.bolo.server.engine.offline;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Timeout;

/**
 * The offline engine's WAV decoder on fuzzed files. It answers {@link WavDecoding.Decoded} or
 * {@link WavDecoding.Malformed}, never an exception, and its output is bounded by its input: at
 * most 16 samples per byte (the lowest accepted rate, 1 kHz, resampled to 16 kHz).
 *
 * <p>The first byte picks the shape. 0: the rest is the file. Otherwise a valid header is built
 * from the next bytes (channels, sample format, rate, an optional chunk before {@code fmt }) around
 * the rest as the samples, and the decoding must be exact: as many samples as the frames resampled
 * to 16 kHz, and 16 kHz 16-bit mono passed through unchanged. Inputs: {@code
 * src/test/resources/dev/bolo/server/engine/offline/WavDecoderFuzzTestInputs}.
 */
class WavDecoderFuzzTest {

  private static final int[] RATES = {8_000, 11_025, 16_000, 22_050, 44_100, 48_000, 96_000};

  @FuzzTest(maxDuration = "2s")
  @Timeout(10)
  void everyFileDecodesExactlyOrIsRefusedWithAReason(byte[] input) {
    if (input.length == 0) {
      return;
    }
    if (input[0] == 0) {
      byte[] file = Arrays.copyOfRange(input, 1, input.length);
      WavDecoding decoding = Wavs.open(file);
      switch (decoding) {
        case WavDecoding.Decoded decoded -> {
          assertThat(decoded.durationMs()).isBetween(0L, 1000L * file.length);
          try {
            short[] samples = Wavs.readAll(decoded.samples(), 4096);
            assertThat((long) samples.length).isLessThanOrEqualTo(16L * file.length);
          } catch (java.io.UncheckedIOException e) {
            // The header was sound but the samples run out or cannot be read: said plainly.
            assertThat(e.getMessage()).isNotBlank();
          }
        }
        case WavDecoding.Malformed malformed -> assertThat(malformed.message()).isNotBlank();
      }
      return;
    }
    if (input.length < 5) {
      return;
    }
    int channels = 1 + Byte.toUnsignedInt(input[1]) % 3;
    int format = Byte.toUnsignedInt(input[2]) % 5;
    int bits = format == 4 ? 32 : 8 * (format + 1);
    boolean isFloat = format == 4;
    int rateChoice = Byte.toUnsignedInt(input[3]);
    int rate =
        rateChoice < RATES.length * 32
            ? RATES[rateChoice % RATES.length]
            : 1_000 + (rateChoice << 8 | Byte.toUnsignedInt(input[4]));
    boolean chunkBeforeFormat = (input[4] & 1) == 1;
    byte[] data = Arrays.copyOfRange(input, 5, input.length);

    int blockAlign = channels * bits / 8;
    byte[] file = wav(isFloat ? 3 : 1, channels, rate, bits, blockAlign, chunkBeforeFormat, data);
    WavDecoding decoding = Wavs.open(file);

    assertThat(decoding).isInstanceOf(WavDecoding.Decoded.class);
    short[] samples = Wavs.readAll(((WavDecoding.Decoded) decoding).samples(), 4096);
    int frames = data.length / blockAlign;
    int expected =
        rate == WavDecoder.TARGET_RATE
            ? frames
            : (int) Math.floor(frames * ((double) WavDecoder.TARGET_RATE / rate));
    assertThat(samples).hasSize(expected);
    if (rate == WavDecoder.TARGET_RATE && channels == 1 && bits == 16 && !isFloat) {
      short[] given = new short[frames];
      ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN).asShortBuffer().get(given);
      assertThat(samples).isEqualTo(given);
    }
  }

  private static byte[] wav(
      int tag,
      int channels,
      int rate,
      int bits,
      int blockAlign,
      boolean chunkBeforeFormat,
      byte[] data) {
    int extra = chunkBeforeFormat ? 8 + 3 + 1 : 0;
    ByteBuffer out =
        ByteBuffer.allocate(12 + extra + 24 + 8 + data.length).order(ByteOrder.LITTLE_ENDIAN);
    out.put("RIFF".getBytes(StandardCharsets.US_ASCII));
    out.putInt(out.capacity() - 8);
    out.put("WAVE".getBytes(StandardCharsets.US_ASCII));
    if (chunkBeforeFormat) {
      // An odd-sized chunk: its pad byte must be skipped.
      out.put("LIST".getBytes(StandardCharsets.US_ASCII)).putInt(3).put(new byte[] {1, 2, 3, 0});
    }
    out.put("fmt ".getBytes(StandardCharsets.US_ASCII)).putInt(16);
    out.putShort((short) tag).putShort((short) channels).putInt(rate);
    out.putInt(rate * blockAlign).putShort((short) blockAlign).putShort((short) bits);
    out.put("data".getBytes(StandardCharsets.US_ASCII)).putInt(data.length).put(data);
    return out.array();
  }
}
