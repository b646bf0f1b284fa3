package dev.bolo.bench;

import dev.bolo.server.upload.Upload;
import dev.bolo.server.upload.UploadReader;
import dev.bolo.server.upload.UploadResult;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.eclipse.jetty.http.MultiPart;
import org.eclipse.jetty.io.Content;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The multipart body scan on one core: a 20 MiB upload delivered in chunks of 16 to 64 KiB, as the
 * socket hands them over. One operation is one whole body, so MB/s = ops/s × 20.97.
 *
 * <ul>
 *   <li>{@code jettyParserScan}: Jetty's {@link MultiPart.Parser} as {@link UploadReader} drives it
 *       (part headers capped, content taken as it streams), with a listener that only counts the
 *       audio bytes: the boundary search and nothing else.
 *   <li>{@code uploadReaderRead}: {@link UploadReader#read} over the same body from a stream that
 *       returns at most one chunk per read: scan, SHA-256, head sniffing and the copy into memory,
 *       then the note is discarded. The server's whole cost of reading a body but for the socket.
 * </ul>
 */
public class MultipartScanBenchmark extends OneCoreBenchmark {

  private static final int NOTE_BYTES = 20 * 1024 * 1024;

  @Param({"16", "64"})
  public int chunkKiB;

  private byte[] body = new byte[0];
  private List<ByteBuffer> chunks = List.of();
  private Path spool = Path.of(".");
  private UploadReader reader = new UploadReader(1, 0, Path.of("."), System::nanoTime);

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    body = BenchBodies.multipart(BenchBodies.wav(NOTE_BYTES, 42));
    chunks = BenchBodies.chunks(body, chunkKiB * 1024);
    spool = Files.createTempDirectory("bolo-bench-spool");
    // The whole note stays in memory: this measures CPU, not the disk.
    reader = new UploadReader(32L * 1024 * 1024, 32 * 1024 * 1024, spool, System::nanoTime);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    Files.deleteIfExists(spool);
  }

  @Benchmark
  public long jettyParserScan() {
    CountingParts parts = new CountingParts();
    MultiPart.Parser parser = new MultiPart.Parser(BenchBodies.BOUNDARY, parts);
    parser.setPartHeadersMaxLength(512);
    for (ByteBuffer chunk : chunks) {
      parser.parse(Content.Chunk.from(chunk.duplicate(), false));
    }
    parser.parse(Content.Chunk.EOF);
    if (!parts.complete) {
      throw new IllegalStateException("the body did not parse");
    }
    return parts.bytes;
  }

  @Benchmark
  public String uploadReaderRead() throws IOException {
    UploadResult result =
        reader.read(BenchBodies.CONTENT_TYPE, body.length, new ChunkedStream(body, chunkKiB));
    if (!(result instanceof UploadResult.Received received)) {
      throw new IllegalStateException("the body was refused: " + result);
    }
    try (Upload upload = received.upload()) {
      return upload.audio().sha256();
    }
  }

  /** Counts part content and nothing else. */
  private static final class CountingParts extends MultiPart.AbstractPartsListener {
    long bytes;
    boolean complete;

    @Override
    public void onPartContent(Content.Chunk chunk) {
      bytes += chunk.remaining();
    }

    @Override
    public void onPart(
        String name, @Nullable String fileName, org.eclipse.jetty.http.HttpFields headers) {}

    @Override
    public void onComplete() {
      complete = true;
    }
  }

  /** Returns at most one chunk per read, as a socket does. */
  private static final class ChunkedStream extends InputStream {
    private final byte[] bytes;
    private final int chunkBytes;
    private int at;

    ChunkedStream(byte[] bytes, int chunkKiB) {
      this.bytes = bytes;
      this.chunkBytes = chunkKiB * 1024;
    }

    @Override
    public int read() {
      return at < bytes.length ? bytes[at++] & 0xff : -1;
    }

    @Override
    public int read(byte[] into, int offset, int length) {
      if (at >= bytes.length) {
        return -1;
      }
      int n = Math.min(Math.min(length, chunkBytes), bytes.length - at);
      System.arraycopy(bytes, at, into, offset, n);
      at += n;
      return n;
    }
  }
}
