package dev.bolo.server.testing;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
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
}
