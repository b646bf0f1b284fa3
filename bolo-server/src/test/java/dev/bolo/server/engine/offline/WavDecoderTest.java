package dev.bolo.server.engine.offline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WavDecoderTest {

  @Test
  void sixteenKilohertzMonoSixteenBitPassesThroughUnchanged() {
    double[][] frames = Wavs.tone(16_000, 1, 440, 0.5, 0.25);
    short[] samples = decoded(Wavs.pcm(16_000, 16, frames));
    assertThat(samples).hasSize(frames.length);
    for (int i = 0; i < samples.length; i++) {
      assertThat((int) samples[i]).isEqualTo((int) Math.round(frames[i][0] * 32767));
    }
  }

  @ParameterizedTest(name = "{0} Hz, {1} channels, {2} bit, format {3}")
  @CsvSource({
    "44100, 2, 24, 1",
    "48000, 1, 32, 1",
    "8000, 1, 8, 1",
    "22050, 6, 16, 1",
    "96000, 2, 32, 3",
  })
  void anyRateChannelCountAndSampleSizeBecomesSixteenKilohertzMonoWithTheToneKept(
      int rate, int channels, int bits, int tag) {
    byte[] wav = Wavs.write(rate, bits, tag, Wavs.tone(rate, channels, 1000, 0.5, 1.0));

    short[] samples = decoded(wav);

    assertThat(samples.length).isCloseTo(16_000, within(2));
    assertThat(dominantFrequency(samples)).isCloseTo(1000, within(10.0));
    assertThat(rms(samples, 800, samples.length - 800))
        .isCloseTo(0.5 / Math.sqrt(2), within(bits == 8 ? 0.02 : 0.01));
  }

  @Test
  void toneAboveTheNewNyquistFrequencyIsFilteredOutNotAliased() {
    byte[] wav = Wavs.pcm(44_100, 16, Wavs.tone(44_100, 1, 12_000, 0.5, 1.0));

    short[] samples = decoded(wav);

    // Aliased, 12 kHz would come back as a loud 4 kHz tone.
    assertThat(rms(samples, 800, samples.length - 800)).isLessThan(0.005);
  }

  @Test
  void channelsAreAveraged() {
    double[][] frames = Wavs.tone(16_000, 2, 300, 0.5, 0.1);
    for (double[] frame : frames) {
      frame[1] = -frame[0];
    }
    assertThat(rms(decoded(Wavs.pcm(16_000, 16, frames)), 0, 1600)).isLessThan(1e-4);
  }

  @Test
  void extensibleFormatWithPcmSubFormatIsRead() {
    byte[] plain = Wavs.pcm(16_000, 16, Wavs.tone(16_000, 1, 440, 0.5, 0.1));
    ByteBuffer out = ByteBuffer.allocate(plain.length + 24).order(ByteOrder.LITTLE_ENDIAN);
    out.put(plain, 0, 12);
    out.put("fmt ".getBytes(StandardCharsets.US_ASCII)).putInt(40);
    out.putShort((short) 0xFFFE).put(plain, 22, 14);
    out.putShort((short) 22).putShort((short) 16).putInt(4).putShort((short) 1);
    out.put(new byte[14]);
    out.put(plain, 36, plain.length - 36);

    assertThat(decoded(out.array())).isEqualTo(decoded(plain));
  }

  @Test
  void dataChunkLongerThanTheFileIsReadAsFarAsItGoes() {
    byte[] wav = Wavs.pcm(16_000, 16, Wavs.tone(16_000, 1, 440, 0.5, 0.1));
    ByteBuffer.wrap(wav).order(ByteOrder.LITTLE_ENDIAN).putInt(40, 0x7fff_0000);

    assertThat(decoded(wav)).hasSize(1600);
  }

  @Test
  void otherChunksBeforeTheDataAreSkipped() {
    byte[] plain = Wavs.pcm(16_000, 16, Wavs.tone(16_000, 1, 440, 0.5, 0.1));
    ByteBuffer out = ByteBuffer.allocate(plain.length + 8 + 5 + 1).order(ByteOrder.LITTLE_ENDIAN);
    out.put(plain, 0, 36);
    out.put("LIST".getBytes(StandardCharsets.US_ASCII)).putInt(5).put(new byte[6]);
    out.put(plain, 36, plain.length - 36);

    assertThat(decoded(out.array())).isEqualTo(decoded(plain));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "not a RIFF file, 'not a RIFF WAVE file'",
    "compressed format tag, 'format tag 85 is not PCM'",
    "no data chunk, 'no data chunk'",
    "block align mismatch, 'block align'",
    "12-bit samples, 'unsupported WAV sample size: 12 bits'",
  })
  void malformedFilesSayWhatIsWrong(String defect, String message) {
    byte[] wav = Wavs.pcm(16_000, 16, Wavs.tone(16_000, 1, 440, 0.5, 0.1));
    ByteBuffer header = ByteBuffer.wrap(wav).order(ByteOrder.LITTLE_ENDIAN);
    byte[] broken =
        switch (defect) {
          case "not a RIFF file" ->
              "ID3 and then some mp3 bytes".getBytes(StandardCharsets.US_ASCII);
          case "compressed format tag" -> {
            header.putShort(20, (short) 0x55);
            yield wav;
          }
          case "no data chunk" -> java.util.Arrays.copyOf(wav, 36);
          case "block align mismatch" -> {
            header.putShort(32, (short) 3);
            yield wav;
          }
          default -> {
            header.putShort(34, (short) 12);
            yield wav;
          }
        };

    assertThat(Wavs.open(broken))
        .isInstanceOfSatisfying(
            WavDecoding.Malformed.class, m -> assertThat(m.message()).contains(message));
  }

  private static short[] decoded(byte[] wav) {
    return Wavs.decoded(wav);
  }

  private static double rms(short[] samples, int from, int to) {
    double sum = 0;
    for (int i = from; i < to; i++) {
      double value = samples[i] / 32768.0;
      sum += value * value;
    }
    return Math.sqrt(sum / (to - from));
  }

  /** Frequency from the count of upward zero crossings over the whole signal. */
  private static double dominantFrequency(short[] samples) {
    int crossings = 0;
    for (int i = 1; i < samples.length; i++) {
      if (samples[i - 1] < 0 && samples[i] >= 0) {
        crossings++;
      }
    }
    return crossings * 16_000.0 / samples.length;
  }
}
