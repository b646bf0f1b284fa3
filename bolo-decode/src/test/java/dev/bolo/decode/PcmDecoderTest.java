package dev.bolo.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.bytedeco.ffmpeg.global.avutil.AVERROR_EOF;
import static org.bytedeco.ffmpeg.global.avutil.AVERROR_INVALIDDATA;

import dev.bolo.audio.SeekableSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class PcmDecoderTest {

  private static final int RATE = 16_000;

  static Stream<String> notes() {
    return Stream.concat(
        references("/durations.tsv").keySet().stream().map(f -> "/audio/" + f),
        references("/phone-durations.tsv").keySet().stream().map(f -> "/phone-audio/" + f));
  }

  @ParameterizedTest
  @MethodSource("notes")
  void everyContainerAPhoneRecordsDecodesToMonoAtTheAskedRateForItsWholeLength(String note)
      throws IOException {
    double seconds = referenceSeconds(note);

    Decoded decoded = decode(bytes(note));

    // Codecs add priming and padding samples (AAC 1024 or 2112, MP3 an encoder delay, AMR a
    // frame): the decoded length is the reference within 120 ms.
    assertThat(decoded.samples() / (double) RATE)
        .isCloseTo(seconds, org.assertj.core.data.Offset.offset(0.12));
    assertThat(decoded.peak())
        .as("speech, not silence")
        .isGreaterThan(0.05f)
        .isLessThanOrEqualTo(1.5f);
  }

  @Test
  void aNoteIsDecodedTheSameInAnyReadSizes() throws IOException {
    byte[] note = bytes("/audio/aac-moov-at-end.m4a");
    float[] whole = decodeAll(note, 4096);
    float[] byOnes = decodeAll(note, 1);
    assertThat(byOnes).containsExactly(whole);
  }

  @Test
  void bytesThatAreNotAudioAreUndecodableAndSaySo() {
    byte[] text =
        "this is not a voice note, only words in a file"
            .repeat(40)
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    assertThatThrownBy(() -> decode(text))
        .isInstanceOf(UndecodableAudioException.class)
        .hasMessageContaining("cannot be opened as audio");
  }

  @Test
  void aWavDeclaringAnAbsurdSampleRateIsUndecodableAtOnce() throws IOException {
    // Found by fuzzing: 92 bytes of 8-bit samples at 536,886,912 Hz took seconds to resample.
    byte[] wav =
        bytes(
            "/dev/bolo/decode/PcmDecoderFuzzTestInputs/everyNoteDecodesToTheSameSamplesTwiceOrIsUndecodable/timeout-a-wav-declaring-a-sample-rate-of-half-a-gigahertz");

    // Refused from its header, before any sample is resampled: the message names the bounds.
    assertThatThrownBy(() -> decode(wav))
        .isInstanceOf(UndecodableAudioException.class)
        .hasMessageContaining("536886912 Hz; notes have 1 to");
  }

  @Test
  void randomBytesAreUndecodable() {
    byte[] noise = new byte[50_000];
    new Random(7).nextBytes(noise);
    assertThatThrownBy(() -> decode(noise)).isInstanceOf(UndecodableAudioException.class);
  }

  @Test
  void aTruncatedM4aWhoseIndexIsLostIsUndecodable() throws IOException {
    byte[] note = bytes("/audio/aac-moov-at-end.m4a");
    byte[] cut = Arrays.copyOf(note, note.length / 2);
    assertThatThrownBy(() -> decode(cut)).isInstanceOf(UndecodableAudioException.class);
  }

  @Test
  void aCutM4aIsRefusedInBolosWordsAndFfmpegsWordsEndAtTheirNulForTheLog() {
    // A recording cut short before its moov index: FFmpeg's error text was once copied with the
    // 256-byte buffer around it, NUL and the process's memory included, into the client's answer.
    byte[] cut =
        bytes(
            "/dev/bolo/decode/PcmDecoderFuzzTestInputs/everyNoteDecodesToTheSameSamplesTwiceOrIsUndecodable/aac-cut-short-no-moov.m4a");

    UndecodableAudioException refused =
        catchThrowableOfType(UndecodableAudioException.class, () -> decode(cut));

    assertThat(refused.sentence())
        .isEqualTo(refused.getMessage())
        .isEqualTo(
            "the note cannot be opened as audio: its container is damaged, cut short or not one"
                + " the gateway reads");
    assertThat(refused.detail())
        .isEqualTo(
            "avformat_open_input: Invalid data found when processing input ("
                + AVERROR_INVALIDDATA
                + ")");
  }

  @Test
  void ffmpegsTextForAnErrorCodeIsItsCStringAloneEveryTime() {
    for (int i = 0; i < 100; i++) {
      assertThat(FfmpegError.describe(AVERROR_INVALIDDATA))
          .isEqualTo("Invalid data found when processing input (" + AVERROR_INVALIDDATA + ")");
    }
    assertThat(FfmpegError.describe(AVERROR_EOF)).isEqualTo("End of file (" + AVERROR_EOF + ")");
  }

  @Test
  void libraryWordsForTheLogAreOneLineOfPrintableAscii() {
    assertThat(FfmpegError.printable("bad\0data\n\u001b[31mred\u00e9"))
        .isEqualTo("bad?data??[31mred?");
  }

  @Test
  void aReadFailureOfTheSourceIsAnIoExceptionNotTheNotesFault() {
    SeekableSource broken =
        new SeekableSource() {
          @Override
          public long size() {
            return 10_000;
          }

          @Override
          public int read(long position, byte[] into, int offset, int length) throws IOException {
            throw new IOException("disk gone");
          }
        };
    assertThatThrownBy(() -> PcmDecoder.open(broken, RATE).close())
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(UndecodableAudioException.class)
        .hasMessage("disk gone");
  }

  @Test
  void manyNotesDecodeAtOnceThroughTheOneSharedPairOfCallbacks() throws Exception {
    byte[] note = bytes("/audio/opus.ogg");
    long expected = decode(note).samples();
    List<Thread> threads = new java.util.ArrayList<>();
    java.util.concurrent.ConcurrentLinkedQueue<Object> results =
        new java.util.concurrent.ConcurrentLinkedQueue<>();
    for (int i = 0; i < 24; i++) {
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      results.add(decode(note).samples());
                    } catch (IOException e) {
                      results.add(e);
                    }
                  }));
    }
    for (Thread thread : threads) {
      thread.join();
    }
    assertThat(results).hasSize(24).allMatch(r -> Objects.equals(r, expected));
  }

  record Decoded(long samples, float peak) {}

  static Decoded decode(byte[] note) throws IOException {
    float[] all = decodeAll(note, 4096);
    float peak = 0;
    for (float s : all) {
      peak = Math.max(peak, Math.abs(s));
    }
    return new Decoded(all.length, peak);
  }

  static float[] decodeAll(byte[] note, int readSize) throws IOException {
    try (PcmDecoder decoder = PcmDecoder.open(SeekableSource.of(note), RATE)) {
      float[] all = new float[0];
      float[] window = new float[readSize];
      int n;
      while ((n = decoder.read(window, 0, readSize)) >= 0) {
        all = Arrays.copyOf(all, all.length + n);
        System.arraycopy(window, 0, all, all.length - n, n);
      }
      assertThat(decoder.samplesRead()).isEqualTo(all.length);
      return all;
    }
  }

  static byte[] bytes(String resource) {
    try (InputStream in = PcmDecoderTest.class.getResourceAsStream(resource)) {
      return Objects.requireNonNull(in, resource).readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static double referenceSeconds(String note) {
    String file = note.substring(note.lastIndexOf('/') + 1);
    Map<String, Double> all = new LinkedHashMap<>(references("/durations.tsv"));
    all.putAll(references("/phone-durations.tsv"));
    return Objects.requireNonNull(all.get(file), file);
  }

  private static Map<String, Double> references(String tsv) {
    Map<String, Double> lengths = new LinkedHashMap<>();
    new String(bytes(tsv), java.nio.charset.StandardCharsets.UTF_8)
        .lines()
        .skip(1)
        .map(line -> line.split("\t"))
        .forEach(cols -> lengths.put(cols[0], Double.parseDouble(cols[1])));
    return lengths;
  }
}
