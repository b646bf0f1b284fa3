package dev.bolo.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.audio.SeekableSource;
import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NoteLengthTest {

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
  void durationIsDataSizeOverByteRate() throws Exception {
    byte[] wav = wav(48000, 48000, false);

    assertThat(NoteLength.millis(SeekableSource.of(wav))).isEqualTo(1500);
  }

  @Test
  void chunksBeforeTheDataChunkAreSkippedWithTheirPadding() throws Exception {
    byte[] wav = wav(32000, 32000, true);

    assertThat(NoteLength.millis(SeekableSource.of(wav))).isEqualTo(1000);
  }

  @Test
  void aDataSizeNeverFixedByTheRecorderIsBoundedByTheFile() throws Exception {
    byte[] wav = wav(16000, 0xFFFFFFFFL, false);

    assertThat(NoteLength.millis(SeekableSource.of(wav))).isEqualTo(500);
  }

  @Test
  void somethingElseHasNoDuration() throws Exception {
    byte[] mp3 =
        "ID3\u0004\u0000\u0000\u0000\u0000\u0000\u0000 not a wav file"
            .getBytes(StandardCharsets.ISO_8859_1);
    byte[] truncated = java.util.Arrays.copyOf(wav(100, 100, false), 30);

    assertThat(NoteLength.millis(SeekableSource.of(mp3))).isEqualTo(-1);
    assertThat(NoteLength.millis(SeekableSource.of(truncated))).isEqualTo(-1);
  }

  /**
   * Notes in every compressed container (made with ffmpeg; lengths from ffprobe): a note from a
   * file, from bytes or from a stream has the gateway's length, within 50 ms of ffprobe's.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "aac-moov-at-end.m4a, 3500",
    "aac-faststart.m4a, 3500",
    "opus.ogg, 3507",
    "vorbis.ogg, 3500",
    "vbr-xing-44k.mp3, 3527",
    "opus-no-duration.webm, 3508",
    "flac-8k.flac, 1300",
    "aac-adts.aac, 3584",
    "pcm24-extensible-8k.wav, 1300"
  })
  void everySourceOfANoteReadsItsLengthFromTheContainer(String name, long ffprobeMillis)
      throws Exception {
    Path file = Path.of(Objects.requireNonNull(getClass().getResource("/audio/" + name)).toURI());
    byte[] bytes = Files.readAllBytes(file);
    AtomicInteger opens = new AtomicInteger();

    VoiceNote fromFile = VoiceNote.ofFile(file);
    VoiceNote fromBytes = VoiceNote.ofBytes(bytes, name);
    VoiceNote fromStream =
        VoiceNote.ofStream(
            () -> {
              opens.incrementAndGet();
              return new ByteArrayInputStream(bytes);
            },
            name);

    assertThat(fromFile.durationMs()).isPresent();
    assertThat(fromFile.durationMs().getAsLong()).isBetween(ffprobeMillis - 50, ffprobeMillis + 50);
    assertThat(fromBytes.durationMs()).isEqualTo(fromFile.durationMs());
    assertThat(fromStream.durationMs()).isEqualTo(fromFile.durationMs());
    // Hashing once plus a few re-opens for headers at the end; never one per read.
    assertThat(opens.get()).isBetween(2, 5);
  }
}
