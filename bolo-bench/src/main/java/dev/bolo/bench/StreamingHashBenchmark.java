package dev.bolo.bench;

import dev.bolo.server.upload.AudioPartWriter;
import dev.bolo.server.upload.UploadResult;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Hashing while streaming, on one core: a note of 200 KiB (the load harness's size, kept in memory
 * by the server) or 20 MiB, in chunks of 16 to 64 KiB on the heap or outside it (as the server's
 * connector hands them over). One operation is one whole note, so MB/s = ops/s × the note's size.
 *
 * <ul>
 *   <li>{@code messageDigestSha256}: the JDK's SHA-256 over the chunks, the reference (and the
 *       ceiling: nothing that hashes every byte can be faster).
 *   <li>{@code audioSinkInMemory}: {@link AudioPartWriter#write}, the server's {@code AudioSink} as
 *       it is called for each chunk of the audio part: SHA-256, the head kept for sniffing and the
 *       copy into memory.
 *   <li>{@code audioSinkSpooled}: the same with the server's default in-memory threshold (1 MiB),
 *       so all but the first MiB goes to a spool file (the page cache, on an idle disk).
 * </ul>
 */
public class StreamingHashBenchmark extends OneCoreBenchmark {

  private static final long MAX_BYTES = 32L * 1024 * 1024;

  @Param({"16", "64"})
  public int chunkKiB;

  @Param({"200", "20480"})
  public int noteKiB;

  /**
   * Where the chunks lie: {@code heap} arrays, or {@code direct} buffers outside the heap, as the
   * server's connector hands them over.
   */
  @Param({"heap", "direct"})
  public String buffers = "heap";

  private List<ByteBuffer> chunks = List.of();
  private Path spool = Path.of(".");
  private AudioPartWriter.Opener inMemory = AudioPartWriter.opener(MAX_BYTES, 0, spool);
  private AudioPartWriter.Opener spooled = inMemory;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    chunks = BenchBodies.chunks(BenchBodies.wav(noteKiB * 1024, 42), chunkKiB * 1024);
    if (buffers.equals("direct")) {
      chunks =
          chunks.stream()
              .map(
                  chunk ->
                      ByteBuffer.allocateDirect(chunk.remaining()).put(chunk.duplicate()).flip())
              .toList();
    }
    spool = Files.createTempDirectory("bolo-bench-spool");
    inMemory = AudioPartWriter.opener(MAX_BYTES, (int) MAX_BYTES, spool);
    spooled = AudioPartWriter.opener(MAX_BYTES, 1024 * 1024, spool);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    Files.deleteIfExists(spool);
  }

  @Benchmark
  public byte[] messageDigestSha256() throws NoSuchAlgorithmException {
    MessageDigest digest = MessageDigest.getInstance("SHA-256");
    for (ByteBuffer chunk : chunks) {
      digest.update(chunk.duplicate());
    }
    return digest.digest();
  }

  @Benchmark
  public long audioSinkInMemory() throws Exception {
    return writeAll(inMemory);
  }

  @Benchmark
  public long audioSinkSpooled() throws Exception {
    return writeAll(spooled);
  }

  private long writeAll(AudioPartWriter.Opener writers) throws Exception {
    long written = 0;
    try (AudioPartWriter sink = writers.open(noteKiB * 1024L)) {
      for (ByteBuffer chunk : chunks) {
        ByteBuffer bytes = chunk.duplicate();
        written += bytes.remaining();
        UploadResult.Invalid refused = sink.write(bytes);
        if (refused != null) {
          throw new IllegalStateException("refused: " + refused);
        }
      }
    }
    return written;
  }
}
