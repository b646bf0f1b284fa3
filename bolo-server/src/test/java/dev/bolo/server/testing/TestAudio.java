package dev.bolo.server.testing;

import dev.bolo.audio.SeekableSource;
import dev.bolo.decode.PcmDecoder;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Makes small, valid, distinct audio files for tests. */
public final class TestAudio {

  private TestAudio() {}

  /** A 16 kHz mono 16-bit PCM WAV of {@code millis} of noise seeded by {@code seed}. */
  public static byte[] wav(int millis, long seed) {
    return wav(millis, seed, 16_000, 1);
  }

  /** A PCM 16-bit WAV with the given rate and channels, filled with seeded noise. */
  public static byte[] wav(int millis, long seed, int sampleRate, int channels) {
    int frames = (int) ((long) sampleRate * millis / 1000);
    int dataBytes = frames * channels * 2;
    ByteBuffer buffer = ByteBuffer.allocate(44 + dataBytes).order(ByteOrder.LITTLE_ENDIAN);
    buffer.put("RIFF".getBytes(StandardCharsets.US_ASCII)).putInt(36 + dataBytes);
    buffer.put("WAVE".getBytes(StandardCharsets.US_ASCII));
    buffer.put("fmt ".getBytes(StandardCharsets.US_ASCII)).putInt(16);
    buffer.putShort((short) 1).putShort((short) channels).putInt(sampleRate);
    buffer.putInt(sampleRate * channels * 2).putShort((short) (channels * 2)).putShort((short) 16);
    buffer.put("data".getBytes(StandardCharsets.US_ASCII)).putInt(dataBytes);
    Random random = new Random(seed);
    for (int i = 0; i < frames * channels; i++) {
      buffer.putShort((short) (random.nextGaussian() * 800));
    }
    return buffer.array();
  }

  /**
   * A lecture in miniature: seven {@link #bursts} of 5 to 11 s, each after 1.5 s of silence, and
   * 1.5 s at the end, {@link #LECTURE_MILLIS} in all; its bursts are {@link #LECTURE_BURSTS}.
   */
  public static byte[] lecture() {
    return bursts(1500, 5000, 6000, 7000, 8000, 9000, 10000, 11000);
  }

  /** The length of {@link #lecture()}. */
  public static final long LECTURE_MILLIS = 68_000;

  /** The names of {@link #lecture()}'s bursts, in order, as a provider that hears them answers. */
  public static final String LECTURE_BURSTS = "b0 b1 b2 b3 b4 b5 b6";

  /** Amplitude of the {@code i}-th burst of {@link #bursts}: {@code 0.05 × (i + 1)}. */
  public static final double BURST_STEP = 0.05;

  /**
   * A 16 kHz mono 16-bit WAV of 440 Hz tone bursts of the given lengths, each after {@code
   * pauseMillis} of digital silence; burst {@code i} has the peak {@code BURST_STEP × (i + 1)}, so
   * that {@link #burstsIn} can tell which bursts a piece of it holds.
   */
  public static byte[] bursts(int pauseMillis, int... burstMillis) {
    int rate = 16_000;
    long total = 0;
    for (int millis : burstMillis) {
      total += (long) (pauseMillis + millis) * rate / 1000;
    }
    int samples = Math.toIntExact(total + (long) pauseMillis * rate / 1000);
    short[] pcm = new short[samples];
    int at = pauseMillis * rate / 1000;
    for (int i = 0; i < burstMillis.length; i++) {
      int length = burstMillis[i] * rate / 1000;
      double peak = BURST_STEP * (i + 1) * Short.MAX_VALUE;
      for (int n = 0; n < length; n++) {
        pcm[at + n] = (short) Math.round(peak * Math.sin(2 * Math.PI * 440 * n / rate));
      }
      at += length + pauseMillis * rate / 1000;
    }
    return wav(pcm, rate);
  }

  /** A 16 kHz mono 16-bit WAV of {@code millis} of one steady 440 Hz tone: no pause anywhere. */
  public static byte[] tone(int millis) {
    int rate = 16_000;
    short[] pcm = new short[(int) ((long) millis * rate / 1000)];
    for (int n = 0; n < pcm.length; n++) {
      pcm[n] = (short) Math.round(0.3 * Short.MAX_VALUE * Math.sin(2 * Math.PI * 440 * n / rate));
    }
    return wav(pcm, rate);
  }

  /** A 16 kHz mono 16-bit WAV of {@code millis} of digital silence. */
  public static byte[] silence(int millis) {
    return wav(new short[Math.multiplyExact(millis, 16)], 16_000);
  }

  /** A mono 16-bit WAV of these samples. */
  public static byte[] wav(short[] pcm, int sampleRate) {
    int dataBytes = pcm.length * 2;
    ByteBuffer buffer = ByteBuffer.allocate(44 + dataBytes).order(ByteOrder.LITTLE_ENDIAN);
    buffer.put("RIFF".getBytes(StandardCharsets.US_ASCII)).putInt(36 + dataBytes);
    buffer.put("WAVE".getBytes(StandardCharsets.US_ASCII));
    buffer.put("fmt ".getBytes(StandardCharsets.US_ASCII)).putInt(16);
    buffer.putShort((short) 1).putShort((short) 1).putInt(sampleRate);
    buffer.putInt(sampleRate * 2).putShort((short) 2).putShort((short) 16);
    buffer.put("data".getBytes(StandardCharsets.US_ASCII)).putInt(dataBytes);
    for (short sample : pcm) {
      buffer.putShort(sample);
    }
    return buffer.array();
  }

  /**
   * The samples of an audio file in any container the gateway decodes (WAV, FLAC, …), as 16-bit
   * mono at 16 kHz: what a provider hears.
   */
  public static short[] samplesOf(byte[] audio) {
    try (PcmDecoder decoder = PcmDecoder.open(SeekableSource.of(audio, audio.length), 16_000)) {
      float[] chunk = new float[8192];
      short[] pcm = new short[1 << 16];
      int count = 0;
      int n;
      while ((n = decoder.read(chunk, 0, chunk.length)) > 0) {
        if (count + n > pcm.length) {
          pcm = java.util.Arrays.copyOf(pcm, Math.max(pcm.length * 2, count + n));
        }
        for (int i = 0; i < n; i++) {
          pcm[count++] = (short) Math.clamp(Math.round(chunk[i] * 32768.0), -32768, 32767);
        }
      }
      return java.util.Arrays.copyOf(pcm, count);
    } catch (java.io.IOException e) {
      throw new AssertionError("not audio: " + audio.length + " bytes", e);
    }
  }

  /**
   * A burst of {@link #bursts} as heard in a piece of its note.
   *
   * @param name {@code b0}, {@code b1} … from the burst's peak
   * @param startMillis where it starts in the samples heard
   * @param endMillis where it ends
   */
  public record Burst(String name, long startMillis, long endMillis) {}

  /** The bursts of {@link #bursts} that these 16 kHz samples hold, in order. */
  public static List<Burst> burstsIn(short[] pcm) {
    List<Burst> found = new ArrayList<>();
    int window = 320;
    int peak = 0;
    int start = 0;
    for (int from = 0; from < pcm.length; from += window) {
      int loudest = 0;
      for (int i = from; i < Math.min(pcm.length, from + window); i++) {
        loudest = Math.max(loudest, Math.abs(pcm[i]));
      }
      if (loudest > Short.MAX_VALUE / 100) {
        start = peak == 0 ? from : start;
        peak = Math.max(peak, loudest);
      } else if (peak > 0) {
        found.add(burst(peak, start, from));
        peak = 0;
      }
    }
    if (peak > 0) {
      found.add(burst(peak, start, pcm.length));
    }
    return found;
  }

  private static Burst burst(int peak, int start, int end) {
    long index = Math.round(peak / (BURST_STEP * Short.MAX_VALUE)) - 1;
    return new Burst("b" + index, start / 16L, end / 16L);
  }
}
