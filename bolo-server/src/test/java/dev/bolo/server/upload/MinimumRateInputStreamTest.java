package dev.bolo.server.upload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class MinimumRateInputStreamTest {

  private static final Duration WINDOW = Duration.ofSeconds(10);
  private static final long MIN_BYTES_PER_SECOND = 1_024;

  private final long[] now = {0};

  /** A client whose every read of at most {@code chunk} bytes takes {@code perRead} to arrive. */
  private InputStream client(int bytes, int chunk, Duration perRead) {
    return new FilterInputStream(new ByteArrayInputStream(new byte[bytes])) {
      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        now[0] += perRead.toNanos();
        return super.read(b, off, Math.min(len, chunk));
      }
    };
  }

  private MinimumRateInputStream limited(InputStream client) {
    return new MinimumRateInputStream(client, MIN_BYTES_PER_SECOND, WINDOW, () -> now[0]);
  }

  @Test
  void aClientSendingBelowTheMinimumWhileTheGatewayWaitsIsCutOff() {
    // 100 bytes a second against a minimum of 1,024.
    MinimumRateInputStream body = limited(client(100_000, 100, Duration.ofSeconds(1)));

    assertThatThrownBy(() -> body.readAllBytes())
        .isInstanceOf(MinimumRateInputStream.TooSlowException.class);
    assertThat(now[0]).isBetween(WINDOW.toNanos(), 2 * WINDOW.toNanos());
  }

  @Test
  void aGatewaySlowBetweenReadsIsNotBlamedOnAClientThatSendsFast() throws IOException {
    // The client's bytes are there at once; the gateway takes 11 s of its own after each read.
    MinimumRateInputStream body = limited(client(100_000, 100, Duration.ZERO));
    byte[] buffer = new byte[100];
    long read = 0;
    int n;
    while ((n = body.read(buffer)) != -1) {
      read += n;
      now[0] += Duration.ofSeconds(11).toNanos();
    }

    assertThat(read).isEqualTo(100_000);
  }

  @Test
  void aClientAtTheMinimumIsNotCutOff() throws IOException {
    // 1,024 bytes a second, exactly the minimum, for a minute.
    MinimumRateInputStream body = limited(client(61_440, 1_024, Duration.ofSeconds(1)));

    byte[] buffer = new byte[1_024];
    long read = 0;
    int n;
    while ((n = body.read(buffer)) != -1) {
      read += n;
    }

    assertThat(read).isEqualTo(61_440);
  }
}
