package dev.bolo.audio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Headers written to get a note for free, or by a broken writer: a contradiction is refused, a
 * length that cannot be read is said to be unmeasurable, and nothing else comes out.
 */
class HostileNoteTest {

  private static final String WAV_CONTRADICTS = "WAV header";

  @Test
  void aWavWhoseByteRateIsAllOnesContradictsItselfInsteadOfLastingNoTime() throws IOException {
    byte[] wav = Bytes.wav(16_000, 1, 16, 2000);
    Bytes.little(wav).putInt(28, 0xFFFFFFFF);

    assertThat(measure(AudioContainer.WAV, wav))
        .isEqualTo(
            new Measurement.Contradicts(
                "the WAV header's byte rate 4294967295 is not its sample rate 16000 times its"
                    + " block size 2 (32000)"));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "no channels, 22, 2, 0",
    "a sample rate of 0 Hz, 24, 4, 0",
    "a block size of 0 bytes, 32, 2, 0",
    "a sample rate beyond any audio, 24, 4, 2147483647",
    "a block size that is not channels times sample size, 32, 2, 3",
    "0 bits per sample, 34, 2, 0",
  })
  void aWavHeaderThatContradictsItselfIsRefused(String what, int offset, int width, int value)
      throws IOException {
    byte[] wav = Bytes.wav(16_000, 1, 16, 1000);
    if (width == 2) {
      Bytes.little(wav).putShort(offset, (short) value);
    } else {
      Bytes.little(wav).putInt(offset, value);
    }

    Measurement measurement = measure(AudioContainer.WAV, wav);

    assertThat(measurement).isInstanceOf(Measurement.Contradicts.class);
    assertThat(((Measurement.Contradicts) measurement).message()).contains(WAV_CONTRADICTS);
  }

  @Test
  void aWavCutShortIsMeasuredByTheSamplesThatArrived() throws IOException {
    byte[] wav = Bytes.wav(16_000, 1, 16, 2000);

    byte[] cut = Arrays.copyOf(wav, 44 + 32_000);

    assertThat(measure(AudioContainer.WAV, cut)).isEqualTo(new Measurement.Measured(1000));
  }

  @ParameterizedTest(name = "data size {0}")
  @CsvSource({"0", "-1"})
  void aStreamedWavIsMeasuredToTheEndOfTheFile(int dataSize) throws IOException {
    byte[] wav = Bytes.wav(8_000, 2, 16, 1500);
    Bytes.little(wav).putInt(40, dataSize);

    assertThat(measure(AudioContainer.WAV, wav)).isEqualTo(new Measurement.Measured(1500));
  }

  @Test
  void anOddSizedChunkBeforeTheDataIsSkippedWithItsPadByte() throws IOException {
    byte[] wav = Bytes.wav(16_000, 1, 16, 1000);
    byte[] list = Bytes.concat(Bytes.ascii("LIST"), new byte[] {3, 0, 0, 0}, Bytes.ascii("abc\0"));

    byte[] padded =
        Bytes.concat(Arrays.copyOf(wav, 36), list, Arrays.copyOfRange(wav, 36, wav.length));

    assertThat(measure(AudioContainer.WAV, padded)).isEqualTo(new Measurement.Measured(1000));
  }

  @Test
  void aChunkClaimingFourGigabytesIsSkippedWithoutReadingOrAllocatingIt() throws IOException {
    byte[] wav = Bytes.wav(16_000, 1, 16, 1000);
    byte[] huge = Bytes.concat(Bytes.ascii("junk"), new byte[] {-16, -1, -1, -1}, new byte[64]);

    byte[] hostile =
        Bytes.concat(Arrays.copyOf(wav, 12), huge, Arrays.copyOfRange(wav, 12, wav.length));

    assertThat(measure(AudioContainer.WAV, hostile))
        .isEqualTo(new Measurement.Unmeasurable("a WAV without a fmt chunk"));
  }

  @Test
  void aCompressedWavIsUnmeasurableNotGuessedFromItsByteRate() throws IOException {
    byte[] wav = Bytes.wav(16_000, 1, 16, 1000);
    Bytes.little(wav).putShort(20, (short) 0x0011);

    assertThat(measure(AudioContainer.WAV, wav))
        .isEqualTo(new Measurement.Unmeasurable("a WAV in compressed format 0x0011"));
  }

  @Test
  void aTwentyFiveMegabyteWavOnDiskIsMeasuredFromItsFirstBytesOnly() throws IOException {
    byte[] header = Arrays.copyOf(Bytes.wav(16_000, 1, 16, 0), 44);
    Bytes.little(header).putInt(40, 0xFFFFFFFF);
    LargeSource note = new LargeSource(header, 25L * 1024 * 1024, new byte[0]);

    Measurement measurement = AudioDurations.measure(AudioContainer.WAV, note);

    assertThat(measurement).isEqualTo(new Measurement.Measured(819_200));
    assertThat(note.bytesRead()).isLessThanOrEqualTo(Cursor.BUFFER_BYTES);
  }

  @Test
  void anM4aWithItsMoovAfterTwentyFiveMegabytesOfMediaIsMeasuredFromAFewKilobytes()
      throws IOException {
    byte[] m4a = TestFiles.audio("aac-moov-at-end.m4a");
    int mdat = Bytes.indexOf(m4a, "mdat", 0) - 4;
    int moov = Bytes.indexOf(m4a, "moov", 0) - 4;
    long zeros = 25L * 1024 * 1024;
    byte[] head = Arrays.copyOf(m4a, mdat + 8);
    Bytes.big(head).putInt(mdat, (int) (8 + zeros));
    byte[] tail = Arrays.copyOfRange(m4a, moov, m4a.length);
    int mvhd = Bytes.indexOf(tail, "mvhd", 0);
    long timescale = Bytes.big(tail).getInt(mvhd + 16);
    Bytes.big(tail).putInt(mvhd + 20, (int) (600 * timescale));
    LargeSource note = new LargeSource(head, zeros, tail);

    Measurement measurement = AudioDurations.measure(AudioContainer.MP4, note);

    assertThat(measurement).isEqualTo(new Measurement.Measured(600_000));
    assertThat(note.bytesRead()).isLessThanOrEqualTo(2L * Cursor.BUFFER_BYTES);
  }

  @Test
  void anMp4WithSixtyFourBitBoxSizesAndItsMoovLastIsMeasured() throws IOException {
    byte[] m4a = TestFiles.audio("aac-faststart.m4a");
    int moov = Bytes.indexOf(m4a, "moov", 0) - 4;
    int mdat = Bytes.indexOf(m4a, "mdat", 0) - 4;
    byte[] ftypAndFree = Arrays.copyOf(m4a, moov);
    byte[] moovBox = Arrays.copyOfRange(m4a, moov, moov + Bytes.big(m4a).getInt(moov));
    byte[] payload = Arrays.copyOfRange(m4a, mdat + 8, m4a.length);
    byte[] largeHeader = new byte[16];
    Bytes.big(largeHeader)
        .putInt(0, 1)
        .put(4, Bytes.ascii("mdat"))
        .putLong(8, 16L + payload.length);

    byte[] reordered = Bytes.concat(ftypAndFree, largeHeader, payload, moovBox);

    assertThat(measure(AudioContainer.MP4, reordered))
        .isEqualTo(measure(AudioContainer.MP4, m4a))
        .isEqualTo(new Measurement.Measured(3500));
  }

  @Test
  void anMp4WithAZeroTimeScaleContradictsItself() throws IOException {
    byte[] m4a = TestFiles.audio("aac-faststart.m4a");
    Bytes.big(m4a).putInt(Bytes.indexOf(m4a, "mvhd", 0) + 16, 0);

    assertThat(measure(AudioContainer.MP4, m4a))
        .isEqualTo(new Measurement.Contradicts("the MP4 mvhd box has a time scale of 0"));
  }

  @Test
  void aMegabyteMp4ClaimingToLastOneMillisecondContradictsItsBytes() throws IOException {
    byte[] m4a = TestFiles.audio("aac-faststart.m4a");
    int mvhd = Bytes.indexOf(m4a, "mvhd", 0);
    int timescale = Bytes.big(m4a).getInt(mvhd + 16);
    Bytes.big(m4a).putInt(mvhd + 20, timescale / 1000);
    byte[] free = new byte[1024 * 1024];
    Bytes.big(free).putInt(0, free.length).put(4, Bytes.ascii("free"));

    Measurement measurement = measure(AudioContainer.MP4, Bytes.concat(m4a, free));

    assertThat(measurement).isInstanceOf(Measurement.Contradicts.class);
    assertThat(((Measurement.Contradicts) measurement).message()).contains("1 ms, too short");
  }

  @Test
  void aFragmentClaimingBillionsOfSamplesContradictsTheBytes() throws IOException {
    byte[] m4a = TestFiles.audio("aac-fragmented.m4a");
    // trun: size, type, version and flags, then the sample count.
    Bytes.big(m4a).putInt(Bytes.indexOf(m4a, "trun", 0) + 8, Integer.MAX_VALUE);

    Measurement measurement = measure(AudioContainer.MP4, m4a);

    assertThat(measurement).isInstanceOf(Measurement.Contradicts.class);
    assertThat(((Measurement.Contradicts) measurement).message()).contains("too long");
  }

  @Test
  void anMp3WithAVbriHeaderIsMeasuredByItsFrameCount() throws IOException {
    byte[] mp3 = TestFiles.audio("cbr-noxing-16k.mp3");
    int frame = firstFrame(mp3);
    // VBRI, 32 bytes after the 4-byte header: version, delay, quality, bytes, then frames.
    byte[] vbri = new byte[26];
    Bytes.big(vbri).put(0, Bytes.ascii("VBRI")).putInt(10, mp3.length).putInt(14, 50);
    System.arraycopy(vbri, 0, mp3, frame + 36, vbri.length);

    // 50 frames of 576 samples at 16 kHz.
    assertThat(measure(AudioContainer.MP3, mp3)).isEqualTo(new Measurement.Measured(1800));
  }

  @Test
  void aacFramesBehindAnId3TagAreMeasuredAsAdtsThoughSniffedAsMp3() throws IOException {
    byte[] adts = TestFiles.audio("aac-adts.aac");
    byte[] tag = new byte[20];
    Bytes.big(tag).put(0, Bytes.ascii("ID3")).put(3, (byte) 4).put(9, (byte) 10);
    byte[] tagged = Bytes.concat(tag, adts);

    assertThat(TestFiles.containerOf(tagged)).isEqualTo(AudioContainer.MP3);
    assertThat(measure(AudioContainer.MP3, tagged)).isEqualTo(measure(AudioContainer.AAC, adts));
  }

  @Test
  void aFreeFormatMp3IsUnmeasurable() throws IOException {
    byte[] mp3 = new byte[4096];
    // MPEG-1 Layer III, 44.1 kHz, bit-rate index 0: free format.
    Bytes.big(mp3).putInt(0, 0xFFFB0044);

    assertThat(measure(AudioContainer.MP3, mp3))
        .isEqualTo(new Measurement.Unmeasurable("a free-format MPEG audio stream"));
  }

  @Test
  void anMp3WhoseXingHeaderUndercountsItsFramesByFarContradictsItsBytes() throws IOException {
    byte[] mp3 = TestFiles.audio("vbr-xing-44k.mp3");
    int xing = Bytes.indexOf(mp3, "Xing", 0);
    Bytes.big(mp3).putInt(xing + 8, 1);
    byte[] padded = Bytes.concat(mp3, new byte[1024 * 1024]);

    assertThat(measure(AudioContainer.MP3, padded)).isInstanceOf(Measurement.Contradicts.class);
  }

  @Test
  void anOpusStreamEndingBeforeItsPreSkipContradictsItself() throws IOException {
    byte[] ogg = TestFiles.audio("opus.ogg");
    Bytes.little(ogg).putLong(Bytes.lastIndexOf(ogg, "OggS") + 6, 1);

    Measurement measurement = measure(AudioContainer.OGG, ogg);

    assertThat(measurement).isInstanceOf(Measurement.Contradicts.class);
    assertThat(((Measurement.Contradicts) measurement).message()).contains("pre-skip");
  }

  @Test
  void aVorbisStreamWithASampleRateOfZeroContradictsItself() throws IOException {
    byte[] ogg = TestFiles.audio("vorbis.ogg");
    int packet = Bytes.indexOf(ogg, "vorbis", 0) - 1;
    Bytes.little(ogg).putInt(packet + 12, 0);

    assertThat(measure(AudioContainer.OGG, ogg))
        .isEqualTo(new Measurement.Contradicts("the Vorbis header says a sample rate of 0 Hz"));
  }

  @Test
  void anOggFileCutBeforeItsLastPageIsMeasuredToThePagesThatArrived() throws IOException {
    byte[] ogg = TestFiles.audio("vorbis.ogg");
    int last = Bytes.lastIndexOf(ogg, "OggS");

    Measurement whole = measure(AudioContainer.OGG, ogg);
    Measurement cut = measure(AudioContainer.OGG, Arrays.copyOf(ogg, last + 10));

    assertThat(cut).isInstanceOf(Measurement.Measured.class);
    assertThat(((Measurement.Measured) cut).millis())
        .isLessThan(((Measurement.Measured) whole).millis());
  }

  @Test
  void aFlacStreamWithoutATotalSampleCountIsMeasuredFromItsLastFrame() throws IOException {
    byte[] flac = TestFiles.audio("flac-8k.flac");
    long packed = Bytes.big(flac).getLong(18);
    Bytes.big(flac).putLong(18, packed & ~0xF_FFFF_FFFFL);

    assertThat(measure(AudioContainer.FLAC, flac)).isEqualTo(new Measurement.Measured(1300));
  }

  @Test
  void aFlacStreamWithoutATotalSampleCountOrAnyFrameIsUnmeasurable() throws IOException {
    byte[] flac = Arrays.copyOf(TestFiles.audio("flac-8k.flac"), 42);
    long packed = Bytes.big(flac).getLong(18);
    Bytes.big(flac).putLong(18, packed & ~0xF_FFFF_FFFFL);

    assertThat(measure(AudioContainer.FLAC, flac))
        .isEqualTo(
            new Measurement.Unmeasurable(
                "a FLAC stream with no sample count and no frame near its end"));
  }

  @Test
  void aFlacStreamWithASampleRateOfZeroContradictsItself() throws IOException {
    byte[] flac = TestFiles.audio("flac-8k.flac");
    long packed = Bytes.big(flac).getLong(18);
    Bytes.big(flac).putLong(18, packed & 0xFFF_FFFF_FFFFL);

    assertThat(measure(AudioContainer.FLAC, flac))
        .isEqualTo(new Measurement.Contradicts("the FLAC STREAMINFO says a sample rate of 0 Hz"));
  }

  @ParameterizedTest(name = "Duration {0}")
  @CsvSource({"NaN", "-1", "Infinity"})
  void aWebmDurationThatIsNoLengthContradictsItself(double duration) throws IOException {
    byte[] webm = TestFiles.audio("opus-duration.webm");
    int element = Bytes.indexOf(webm, "\u0044\u0089\u0088", 0);
    Bytes.big(webm).putDouble(element + 3, duration);

    Measurement measurement = measure(AudioContainer.WEBM, webm);

    assertThat(measurement).isInstanceOf(Measurement.Contradicts.class);
    assertThat(((Measurement.Contradicts) measurement).message()).contains("Duration");
  }

  @Test
  void aWebmTimecodeScaleOfZeroContradictsItself() throws IOException {
    byte[] webm = TestFiles.audio("opus-duration.webm");
    int element = Bytes.indexOf(webm, "\u002a\u00d7\u00b1", 0);
    int size = (webm[element + 3] & 0xff) - 0x80;
    Arrays.fill(webm, element + 4, element + 4 + size, (byte) 0);

    assertThat(measure(AudioContainer.WEBM, webm))
        .isEqualTo(new Measurement.Contradicts("the WebM TimecodeScale is 0"));
  }

  @Test
  void aWebmWhoseDurationUnderstatesItsBlocksIsMeasuredByItsBlocks() throws IOException {
    byte[] webm = TestFiles.audio("opus-duration.webm");
    int element = Bytes.indexOf(webm, "\u0044\u0089\u0088", 0);
    Bytes.big(webm).putDouble(element + 3, 1.0);

    Measurement measurement = measure(AudioContainer.WEBM, webm);

    assertThat(measurement).isInstanceOf(Measurement.Measured.class);
    assertThat(((Measurement.Measured) measurement).millis()).isGreaterThan(3400);
  }

  @Test
  void aWebmWithClustersOfUnknownSizeAsBrowsersWriteThemIsMeasuredByItsBlocks() throws IOException {
    byte[] webm = TestFiles.audio("opus-no-duration.webm");
    Measurement sized = measure(AudioContainer.WEBM, webm);

    byte[] live = unknownSizeClusters(webm);

    assertThat(live.length).isGreaterThan(webm.length);
    assertThat(measure(AudioContainer.WEBM, live)).isEqualTo(sized);
  }

  @Test
  void aFileThatIsNoAudioContainerIsUnmeasurable() throws IOException {
    byte[] text = Bytes.ascii("hello, this is not audio at all");

    assertThat(AudioDurations.measure(SeekableSource.of(text)))
        .isEqualTo(new Measurement.Unmeasurable("not a recognised audio container"));
  }

  @Test
  void aSourceThatFailsToReadIsTheCallersIoExceptionNotAVerdictOnTheNote() {
    byte[] wav = Bytes.wav(16_000, 1, 16, 1000);
    SeekableSource failing =
        new SeekableSource() {
          @Override
          public long size() {
            return wav.length;
          }

          @Override
          public int read(long position, byte[] into, int offset, int length) throws IOException {
            if (position > 0) {
              throw new IOException("disk gone");
            }
            return SeekableSource.of(wav).read(position, into, offset, Math.min(length, 12));
          }
        };

    assertThatThrownBy(() -> AudioDurations.measure(failing))
        .isInstanceOf(IOException.class)
        .hasMessage("disk gone");
  }

  /** The offset of the first MPEG frame: after the ID3v2 tag, if any. */
  private static int firstFrame(byte[] mp3) {
    if (mp3[0] != 'I') {
      return 0;
    }
    int size = 0;
    for (int i = 6; i < 10; i++) {
      size = size << 7 | mp3[i];
    }
    return 10 + size;
  }

  /** Rewrites every Cluster's size as the 8-byte "unknown" a live writer leaves. */
  private static byte[] unknownSizeClusters(byte[] webm) {
    byte[] unknown = {0x01, -1, -1, -1, -1, -1, -1, -1};
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int copied = 0;
    for (int at = 0; at + 4 < webm.length; at++) {
      boolean cluster =
          (webm[at] & 0xff) == 0x1f
              && (webm[at + 1] & 0xff) == 0x43
              && (webm[at + 2] & 0xff) == 0xb6
              && (webm[at + 3] & 0xff) == 0x75;
      if (!cluster) {
        continue;
      }
      int sizeLength = Integer.numberOfLeadingZeros(webm[at + 4] & 0xff) - 23;
      out.write(webm, copied, at + 4 - copied);
      out.write(unknown, 0, unknown.length);
      copied = at + 4 + sizeLength;
      at = copied - 1;
    }
    out.write(webm, copied, webm.length - copied);
    return out.toByteArray();
  }

  private static Measurement measure(AudioContainer container, byte[] bytes) throws IOException {
    return AudioDurations.measure(container, SeekableSource.of(bytes));
  }
}
