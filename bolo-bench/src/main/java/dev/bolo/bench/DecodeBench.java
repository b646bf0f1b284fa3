package dev.bolo.bench;

import dev.bolo.audio.SeekableSource;
import dev.bolo.decode.PcmDecoder;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * How long the gateway's decoder takes to turn a note into 16 kHz mono floats, in the gateway's
 * process: the median wall and CPU time of {@code RUNS} decodes after {@code RUNS} untimed ones, so
 * the figure is a warm gateway's. Compare with an {@code ffmpeg} process per note by timing {@code
 * ffmpeg -i NOTE -f f32le -ac 1 -ar 16000 -} as a whole process.
 *
 * <p>Usage: {@code DecodeBench NOTE [RUNS]}.
 */
public final class DecodeBench {

  private DecodeBench() {}

  public static void main(String[] args) throws Exception {
    byte[] note = Files.readAllBytes(Path.of(args[0]));
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    for (int i = 0; i < runs; i++) {
      decode(note);
    }
    double[] wall = new double[runs];
    double[] cpu = new double[runs];
    long samples = 0;
    for (int i = 0; i < runs; i++) {
      long cpuBefore = threads.getCurrentThreadCpuTime();
      long started = System.nanoTime();
      samples = decode(note);
      wall[i] = (System.nanoTime() - started) / 1e6;
      cpu[i] = (threads.getCurrentThreadCpuTime() - cpuBefore) / 1e6;
    }
    Arrays.sort(wall);
    Arrays.sort(cpu);
    System.out.printf(
        Locale.ROOT,
        "%s: %d bytes, %.1f s of audio; decode median %.0f ms wall (min %.0f, max %.0f), %.0f ms"
            + " CPU, %.0fx real time%n",
        args[0],
        note.length,
        samples / 16_000.0,
        wall[runs / 2],
        wall[0],
        wall[runs - 1],
        cpu[runs / 2],
        samples / 16.0 / wall[runs / 2]);
  }

  private static long decode(byte[] note) throws Exception {
    float[] window = new float[4096];
    try (PcmDecoder decoder = PcmDecoder.open(SeekableSource.of(note), 16_000)) {
      while (decoder.read(window, 0, window.length) >= 0) {
        // Read to the end: the samples themselves are not needed here.
      }
      return decoder.samplesRead();
    }
  }
}
