package dev.bolo.server.engine.offline;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The decoder reads a note a window at a time and resamples each window with the filter's state
 * carried over, and gives exactly the samples that decoding the whole file at once gave ({@link
 * WholeNoteDecoder}, the decoder before it streamed), however the file's reads and the recogniser's
 * reads are cut.
 */
class StreamingDecoderTest {

  @ParameterizedTest(name = "{0} Hz, {1} channels, {2} bit, format {3}, {4} s")
  @CsvSource({
    "1000, 1, 8, 1, 3.0",
    "8000, 1, 16, 1, 2.0",
    "11025, 2, 8, 1, 1.5",
    "16000, 1, 16, 1, 1.3",
    "16000, 3, 24, 1, 0.7",
    "22050, 6, 16, 1, 0.9",
    "44100, 2, 24, 1, 1.1",
    "48000, 1, 32, 1, 0.8",
    "96000, 2, 32, 3, 0.6",
    "768000, 1, 16, 1, 0.2",
  })
  void streamedSamplesEqualTheWholeNoteDecodingSampleForSample(
      int rate, int channels, int bits, int tag, double seconds) throws IOException {
    byte[] wav = Wavs.write(rate, bits, tag, noisyTone(rate, channels, seconds, rate));
    short[] reference = WholeNoteDecoder.decode(wav);

    for (int seed = 0; seed < 3; seed++) {
      Random cuts = new Random(seed);
      WavDecoding.Decoded decoded = open(new Choppy(wav, cuts), wav.length);
      short[] streamed = readInRandomSteps(decoded.samples(), cuts);

      assertThat(streamed).as("seed %d", seed).isEqualTo(reference);
      assertThat(decoded.durationMs()).isEqualTo(reference.length * 1000L / 16_000);
    }
  }

  @Test
  void theCommittedSampleNotesGiveTheRecognizerExactlyTheSamplesTheyGaveBefore()
      throws IOException {
    for (SampleNotes note : SampleNotes.all()) {
      byte[] wav = note.bytes();
      // The same note as a phone might record it: 44.1 kHz stereo 8-bit.
      byte[] stereo = Wavs.pcm(44_100, 8, stereoAt44k(Wavs.samples16(wav)));
      for (byte[] file : List.of(wav, stereo)) {
        WavDecoding.Decoded decoded = open(new Choppy(file, new Random(8)), file.length);
        assertThat(readInRandomSteps(decoded.samples(), new Random(9)))
            .as(note.name())
            .isEqualTo(WholeNoteDecoder.decode(file));
      }
    }
  }

  @ParameterizedTest(name = "data size field {0}")
  @ValueSource(longs = {0L, 0xFFFF_FFFFL, 0x7FFF_0000L})
  void aDataSizeThatIsUnknownOrTooLargeIsReadToTheEndOfTheFileAsBefore(long declared)
      throws IOException {
    // An odd byte count: the last frame of this 16-bit stereo file is cut off.
    byte[] whole = Wavs.pcm(8_000, 16, noisyTone(8_000, 2, 0.5, 7));
    byte[] wav = java.util.Arrays.copyOf(whole, whole.length - 3);
    ByteBuffer.wrap(wav).order(ByteOrder.LITTLE_ENDIAN).putInt(40, (int) declared);

    WavDecoding.Decoded decoded = open(new Choppy(wav, new Random(3)), wav.length);

    assertThat(readInRandomSteps(decoded.samples(), new Random(4)))
        .isEqualTo(WholeNoteDecoder.decode(wav))
        .hasSize((int) ((whole.length - 44) / 4 - 1) * 2);
  }

  @ParameterizedTest(name = "{0}-byte chunk before the data")
  @ValueSource(ints = {0, 5, 4097, 40_000})
  void chunksBeforeTheDataAreSkippedWithTheirPadding(int chunkLength) throws IOException {
    byte[] plain = Wavs.pcm(22_050, 16, noisyTone(22_050, 1, 0.4, 11));
    int padded = chunkLength + (chunkLength & 1);
    ByteBuffer out = ByteBuffer.allocate(plain.length + 8 + padded).order(ByteOrder.LITTLE_ENDIAN);
    out.put(plain, 0, 36);
    out.put("LIST".getBytes(StandardCharsets.US_ASCII)).putInt(chunkLength).put(new byte[padded]);
    out.put(plain, 36, plain.length - 36);
    byte[] wav = out.array();

    WavDecoding.Decoded decoded = open(new Choppy(wav, new Random(5)), wav.length);

    assertThat(readInRandomSteps(decoded.samples(), new Random(6)))
        .isEqualTo(WholeNoteDecoder.decode(plain));
  }

  @ParameterizedTest(name = "{0} Hz")
  @ValueSource(ints = {1_000, 16_000, 44_100})
  void decodingReadsTheFileOnlyAWindowAheadOfTheRecognizer(int rate) throws IOException {
    // Ten hours of 8-bit mono, made up as it is read: nothing holds the whole note.
    long dataLength = 10L * 3600 * rate;
    Endless file = new Endless(rate, dataLength);

    WavDecoding.Decoded decoded = open(file, 44 + dataLength);
    short[] first = new short[20_000];
    int read = 0;
    while (read < first.length) {
      read += decoded.samples().read(first, read, first.length - read);
    }

    assertThat(decoded.durationMs()).isEqualTo(10L * 3600 * 1000);
    // What 20,000 samples at 16 kHz need of the file, plus the filter's reach and the windows of
    // the resampler (4,096 samples) and of the file (WINDOW_BYTES): nothing that grows with the
    // note's length.
    long needed = 44 + (long) Math.ceil(first.length * (double) rate / 16_000);
    assertThat(file.consumed()).isLessThanOrEqualTo(needed + 5_000 + WavDecoder.WINDOW_BYTES);
  }

  private static WavDecoding.Decoded open(InputStream in, long size) throws IOException {
    WavDecoding decoding = WavDecoder.open(in, size);
    assertThat(decoding).isInstanceOf(WavDecoding.Decoded.class);
    return (WavDecoding.Decoded) decoding;
  }

  /** Reads to the end in reads of 1 to 5,000 samples, at varying offsets of a scratch buffer. */
  private static short[] readInRandomSteps(NoteSamples samples, Random steps) throws IOException {
    java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
    short[] scratch = new short[10_000];
    while (true) {
      int offset = steps.nextInt(5_000);
      int read = samples.read(scratch, offset, 1 + steps.nextInt(5_000));
      if (read < 0) {
        break;
      }
      for (int i = 0; i < read; i++) {
        all.write(scratch[offset + i] >> 8);
        all.write(scratch[offset + i]);
      }
    }
    ByteBuffer bytes = ByteBuffer.wrap(all.toByteArray());
    short[] out = new short[bytes.remaining() / 2];
    bytes.asShortBuffer().get(out);
    return out;
  }

  /** 16 kHz mono as 44.1 kHz stereo, by linear interpolation, left and right slightly apart. */
  private static double[][] stereoAt44k(double[] mono) {
    double[][] frames = new double[(int) (mono.length * 44_100L / 16_000)][2];
    for (int i = 0; i < frames.length; i++) {
      double at = i * 16_000.0 / 44_100;
      int k = Math.min((int) at, mono.length - 2);
      double value = mono[k] + (at - k) * (mono[k + 1] - mono[k]);
      frames[i][0] = value;
      frames[i][1] = 0.9 * value;
    }
    return frames;
  }

  /**
   * A tone with noise on every channel (different on each), so that every bit of a frame counts.
   */
  private static double[][] noisyTone(int rate, int channels, double seconds, long seed) {
    Random noise = new Random(seed);
    double[][] frames = new double[(int) (rate * seconds)][channels];
    for (int i = 0; i < frames.length; i++) {
      double tone = 0.4 * Math.sin(2 * Math.PI * 440 * i / rate);
      for (int c = 0; c < channels; c++) {
        frames[i][c] = tone + 0.3 * (noise.nextDouble() * 2 - 1);
      }
    }
    return frames;
  }

  /** The file's bytes in reads of 1 to 700 bytes, so reads end inside frames and the header. */
  private static final class Choppy extends ByteArrayInputStream {
    private final Random cuts;

    Choppy(byte[] bytes, Random cuts) {
      super(bytes);
      this.cuts = cuts;
    }

    @Override
    public synchronized int read(byte[] into, int offset, int length) {
      return super.read(into, offset, Math.min(length, 1 + cuts.nextInt(700)));
    }

    @Override
    public synchronized long skip(long count) {
      return super.skip(Math.min(count, 1 + cuts.nextInt(700)));
    }
  }

  /** The header of an 8-bit mono WAV, then a sawtooth made up as it is read. */
  private static final class Endless extends InputStream {
    private final byte[] header;
    private long position;

    Endless(int rate, long dataLength) {
      this.header = Wavs.pcm(rate, 8, new double[0][1]);
      ByteBuffer view = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
      view.putInt(4, (int) Math.min(0xFFFF_FFFFL, 36 + dataLength));
      view.putInt(40, (int) Math.min(0xFFFF_FFFFL, dataLength));
    }

    long consumed() {
      return position;
    }

    @Override
    public int read() {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] into, int offset, int length) {
      for (int i = 0; i < length; i++) {
        into[offset + i] =
            position < header.length ? header[(int) position] : (byte) (position % 200 + 28);
        position++;
      }
      return length;
    }
  }
}
