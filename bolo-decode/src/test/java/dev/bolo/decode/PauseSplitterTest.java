package dev.bolo.decode;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.audio.SeekableSource;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PauseSplitterTest {

  private static final int RATE = 16_000;

  @Test
  void speechBetweenPausesIsOnePieceEachTimedAgainstTheNote() throws IOException {
    // 1 s of silence, 2 s of speech, 1 s of silence, 3 s of speech, 0.5 s of silence.
    Signal note = new Signal().silence(1000).speech(2000).silence(1000).speech(3000).silence(500);

    List<Piece> pieces = split(note, PauseSplitter.Limits.utterances());

    assertThat(pieces).hasSize(2);
    // Each piece starts the padding (200 ms) before its speech and ends in the pause after it.
    assertThat(pieces.get(0).startMillis()).isEqualTo(800);
    assertThat(pieces.get(0).endMillis()).isBetween(3000L, 3400L);
    assertThat(pieces.get(1).startMillis()).isEqualTo(3800);
    assertThat(pieces.get(1).endMillis()).isBetween(7000L, 7200L);
  }

  @Test
  void aPauseShorterThanTheShortestIsNoCut() throws IOException {
    Signal note = new Signal().speech(1500).silence(200).speech(1500);

    assertThat(split(note, PauseSplitter.Limits.utterances())).hasSize(1);
  }

  @Test
  void speechWithNoPauseIsCutAtItsQuietestPointWithinTheLongestPiece() throws IOException {
    // 70 s of speech without a pause; at 22 s and 50 s it dips to a murmur for 40 ms.
    Signal note = new Signal().speech(22_000).murmur(40).speech(27_960).murmur(40).speech(19_960);

    List<Piece> pieces = split(note, PauseSplitter.Limits.utterances());

    assertThat(pieces).hasSize(3);
    assertThat(pieces).allMatch(piece -> piece.endMillis() - piece.startMillis() <= 30_000);
    assertThat(pieces.get(0).endMillis()).isBetween(22_000L, 22_040L);
    assertThat(pieces.get(1).startMillis()).isEqualTo(pieces.get(0).endMillis());
    assertThat(pieces.get(1).endMillis()).isBetween(50_000L, 50_040L);
    assertThat(pieces.get(2).endMillis()).isEqualTo(70_000L);
    assertThat(pieces.stream().mapToLong(p -> p.samples().length).sum()).isEqualTo(70L * RATE);
  }

  @Test
  void pureSilenceIsNoPieceAndTheWholeNoteIsStillRead() throws IOException {
    Signal note = new Signal().silence(12_345);
    PauseSplitter splitter = new PauseSplitter(note.samples(), PauseSplitter.Limits.utterances());

    assertThat(splitter.next()).isNull();
    assertThat(splitter.samplesRead()).isEqualTo(12_345L * RATE / 1000);
  }

  @Test
  void speechInNoiseTwentyDecibelsBelowItIsCutAtItsPauses() throws IOException {
    Signal note =
        new Signal()
            .noise(-46)
            .silence(2000)
            .speech(4000)
            .silence(800)
            .speech(4000)
            .silence(800)
            .speech(2000)
            .silence(1000);

    List<Piece> pieces = split(note, PauseSplitter.Limits.utterances());

    assertThat(pieces).extracting(Piece::startMillis).containsExactly(1800L, 6600L, 11_400L);
  }

  @Test
  void anHourLongNoteIsSplitHoldingOnePieceAtATime() throws IOException {
    // One hour: 9 s of speech and 1 s of silence, repeated, read without ever being held whole.
    MonoSamples hour =
        new MonoSamples() {
          private final Random random = new Random(3);
          private long at;

          @Override
          public int sampleRate() {
            return RATE;
          }

          @Override
          public int read(float[] into, int offset, int length) {
            long end = 3600L * RATE;
            if (at >= end) {
              return -1;
            }
            int n = (int) Math.min(length, end - at);
            for (int i = 0; i < n; i++, at++) {
              boolean speaking = at % (10L * RATE) < 9L * RATE;
              into[offset + i] = speaking ? (float) (random.nextGaussian() * 0.1) : 0f;
            }
            return n;
          }
        };
    PauseSplitter splitter = new PauseSplitter(hour, PauseSplitter.Limits.utterances());
    int count = 0;
    Piece piece;
    while ((piece = splitter.next()) != null) {
      count++;
      assertThat(piece.samples().length).isLessThanOrEqualTo(30 * RATE);
    }
    assertThat(count).isEqualTo(360);
    assertThat(splitter.samplesRead()).isEqualTo(3600L * RATE);
  }

  @Test
  void aRecordedNoteIsCutAtTheGapsBetweenItsSentences() throws IOException {
    // Two spoken sentences with a second of silence between them, as an AAC m4a.
    byte[] note = PcmDecoderTest.bytes("/phone-audio/amr-wb.3gp");
    try (PcmDecoder decoder = PcmDecoder.open(SeekableSource.of(note), RATE)) {
      PauseSplitter splitter =
          new PauseSplitter(
              decoder,
              new PauseSplitter.Limits(
                  Duration.ofSeconds(30), Duration.ofMillis(300), Duration.ofMillis(100)));
      List<Piece> pieces = new ArrayList<>();
      Piece piece;
      while ((piece = splitter.next()) != null) {
        pieces.add(piece);
      }
      assertThat(pieces).isNotEmpty();
      assertThat(pieces.get(0).startMillis()).isLessThan(400);
      assertThat(splitter.samplesRead()).isEqualTo(decoder.samplesRead());
    }
  }

  private static List<Piece> split(Signal note, PauseSplitter.Limits limits) throws IOException {
    PauseSplitter splitter = new PauseSplitter(note.samples(), limits);
    List<Piece> pieces = new ArrayList<>();
    Piece piece;
    while ((piece = splitter.next()) != null) {
      pieces.add(piece);
    }
    assertThat(splitter.samplesRead()).isEqualTo(note.length());
    return pieces;
  }

  /** A synthetic note: speech is loud noise (-20 dBFS), a murmur -34 dBFS, silence nothing. */
  private static final class Signal {
    private final List<float[]> parts = new ArrayList<>();
    private final Random random = new Random(11);
    private double noiseDb = Double.NEGATIVE_INFINITY;

    Signal noise(double db) {
      noiseDb = db;
      return this;
    }

    Signal speech(int millis) {
      return add(millis, -20);
    }

    Signal murmur(int millis) {
      return add(millis, -34);
    }

    Signal silence(int millis) {
      return add(millis, Double.NEGATIVE_INFINITY);
    }

    private Signal add(int millis, double db) {
      float[] part = new float[millis * RATE / 1000];
      double amplitude = Math.pow(10, db / 20);
      double noise = Math.pow(10, noiseDb / 20);
      for (int i = 0; i < part.length; i++) {
        part[i] = (float) (random.nextGaussian() * amplitude + random.nextGaussian() * noise);
      }
      parts.add(part);
      return this;
    }

    long length() {
      return parts.stream().mapToLong(p -> p.length).sum();
    }

    MonoSamples samples() {
      float[] all = new float[(int) length()];
      int at = 0;
      for (float[] part : parts) {
        System.arraycopy(part, 0, all, at, part.length);
        at += part.length;
      }
      return new MonoSamples() {
        private int position;

        @Override
        public int sampleRate() {
          return RATE;
        }

        @Override
        public int read(float[] into, int offset, int length) {
          if (position == all.length) {
            return -1;
          }
          int n = Math.min(length, all.length - position);
          System.arraycopy(all, position, into, offset, n);
          position += n;
          return n;
        }
      };
    }
  }
}
