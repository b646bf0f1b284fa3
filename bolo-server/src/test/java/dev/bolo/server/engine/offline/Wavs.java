package dev.bolo.server.engine.offline;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/** Writes WAV files for tests: integer PCM of 8 to 32 bits or 32-bit float, any channel count. */
final class Wavs {

  private Wavs() {}

  /**
   * A WAV file holding {@code frames[i][channel]} samples in [-1, 1].
   *
   * @param tag 1 for integer PCM, 3 for IEEE float
   */
  static byte[] write(int rate, int bits, int tag, double[][] frames) {
    int channels = frames.length == 0 ? 1 : frames[0].length;
    int bytes = bits / 8;
    int dataLength = frames.length * channels * bytes;
    ByteBuffer out = ByteBuffer.allocate(44 + dataLength).order(ByteOrder.LITTLE_ENDIAN);
    out.put("RIFF".getBytes(StandardCharsets.US_ASCII)).putInt(36 + dataLength);
    out.put("WAVE".getBytes(StandardCharsets.US_ASCII));
    out.put("fmt ".getBytes(StandardCharsets.US_ASCII)).putInt(16);
    out.putShort((short) tag).putShort((short) channels).putInt(rate);
    out.putInt(rate * channels * bytes).putShort((short) (channels * bytes)).putShort((short) bits);
    out.put("data".getBytes(StandardCharsets.US_ASCII)).putInt(dataLength);
    for (double[] frame : frames) {
      for (double sample : frame) {
        put(out, bits, tag, sample);
      }
    }
    return out.array();
  }

  static byte[] pcm(int rate, int bits, double[][] frames) {
    return write(rate, bits, 1, frames);
  }

  private static void put(ByteBuffer out, int bits, int tag, double sample) {
    double clamped = Math.max(-1, Math.min(1 - 1e-9, sample));
    if (tag == 3) {
      out.putFloat((float) clamped);
      return;
    }
    switch (bits) {
      case 8 -> out.put((byte) (Math.round(clamped * 127) + 128));
      case 16 -> out.putShort((short) Math.round(clamped * 32767));
      case 24 -> {
        int value = (int) Math.round(clamped * 8388607);
        out.put((byte) value).put((byte) (value >> 8)).put((byte) (value >> 16));
      }
      case 32 -> out.putInt((int) Math.round(clamped * 2147483647.0));
      default -> throw new IllegalArgumentException("bits: " + bits);
    }
  }

  /** A sine of {@code hertz} at {@code amplitude}, {@code seconds} long, on every channel. */
  static double[][] tone(int rate, int channels, double hertz, double amplitude, double seconds) {
    double[][] frames = new double[(int) (rate * seconds)][channels];
    for (int i = 0; i < frames.length; i++) {
      double value = amplitude * Math.sin(2 * Math.PI * hertz * i / rate);
      for (int c = 0; c < channels; c++) {
        frames[i][c] = value;
      }
    }
    return frames;
  }

  /** The samples of a 16-bit mono WAV with a 44-byte header, scaled to [-1, 1). */
  static double[] samples16(byte[] wav) {
    ByteBuffer in = ByteBuffer.wrap(wav).order(ByteOrder.LITTLE_ENDIAN);
    double[] samples = new double[(wav.length - 44) / 2];
    for (int i = 0; i < samples.length; i++) {
      samples[i] = in.getShort(44 + 2 * i) / 32768.0;
    }
    return samples;
  }

  /** Reads a piece's samples to the end and counts them. */
  static int count(NoteSamples samples) {
    short[] window = new short[4096];
    int count = 0;
    int read;
    while ((read = samples.read(window, 0, window.length)) >= 0) {
      count += read;
    }
    return count;
  }
}
