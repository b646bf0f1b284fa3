package dev.bolo.bench;

/**
 * Runs the JMH microbenchmarks of this module ({@code bolo-bench/run Microbenchmarks [JMH
 * OPTIONS]}): every benchmark by default, or those matching a regular expression, with any of JMH's
 * options ({@code -prof gc}, {@code -p chunkKiB=64}, {@code -f 2}, {@code -h} lists them).
 */
public final class Microbenchmarks {

  private Microbenchmarks() {}

  public static void main(String[] args) throws Exception {
    org.openjdk.jmh.Main.main(args);
  }
}
