package dev.bolo.server.upload;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * The audio part's streaming path exactly as the upload reader drives it (SHA-256, the head kept to
 * recognise the container, memory up to a threshold, the spool beyond it), for code outside this
 * package that must measure or drive it alone: the benchmarks. Closing discards what was written.
 *
 * <p>Not thread safe: one part at a time.
 */
public final class AudioPartWriter implements AutoCloseable {

  private final AudioSink sink;

  private AudioPartWriter(AudioSink sink) {
    this.sink = sink;
  }

  /**
   * Opens writers with no spool limit, sharing one pool of spool buffers as one reader's uploads
   * do.
   *
   * @param maxAudioBytes the largest accepted part; one byte more refuses it
   * @param inMemoryBytes parts up to this size stay in memory; larger ones spool to disk
   * @param spoolDir where the spool files go; created if missing
   */
  public static Opener opener(long maxAudioBytes, int inMemoryBytes, Path spoolDir) {
    return new Opener(
        new AudioSink.Config(
            maxAudioBytes, inMemoryBytes, spoolDir, SpoolBudget.unbounded(), new SpoolBuffers()));
  }

  /** Opens writers of one configuration. Thread safe. */
  public static final class Opener {
    private final AudioSink.Config config;

    private Opener(AudioSink.Config config) {
      this.config = config;
    }

    /**
     * A writer for one audio part.
     *
     * @param bodyLength the declared length of the whole body, -1 when unknown
     */
    public AudioPartWriter open(long bodyLength) {
      return new AudioPartWriter(config.open(bodyLength));
    }
  }

  /**
   * Takes the next bytes of the part (all of {@code bytes}, which is left consumed).
   *
   * @return why the part is refused (too large, not audio), or null to go on
   * @throws IOException when the spool cannot be written
   */
  public UploadResult.@Nullable Invalid write(ByteBuffer bytes) throws IOException {
    try {
      return sink.write(bytes);
    } catch (AudioSink.SpoolFull e) {
      // Not reached under an unbounded budget; answered as the reader answers it.
      return new UploadResult.Invalid(
          UploadResult.Reason.SPOOL_FULL, "the gateway is holding too many uploads");
    }
  }

  @Override
  public void close() {
    sink.close();
  }
}
