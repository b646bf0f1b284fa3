package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.RawAnswer;
import dev.bolo.testkit.Await;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A connection still reading a refused body when the gateway stops: its client has its answer, so
 * the stop waits for nothing of it.
 */
class DrainsOnStopTest {

  @RegisterExtension
  final OpenAiGateway fixture =
      OpenAiGateway.onDemand(
          Map.of(
              // Far longer than the test: only the stop may end the connection.
              "BOLO_IDLE_TIMEOUT", "120s"));

  /**
   * A client sending a refused note at four times the minimum rate, which a drain reads for
   * minutes, is cut off by the stop, and the stop takes no longer for it (20 ms here; a stop that
   * waited for the connection to end would wait for the whole note, 6 minutes at this rate).
   */
  @Test
  void aClientStillSendingARefusedNoteDoesNotHoldTheStop() throws Exception {
    Gateway gateway = fixture.start(Map.of());
    try (Socket socket = new Socket("127.0.0.1", gateway.app().port())) {
      socket.setSoTimeout((int) Duration.ofSeconds(60).toMillis());
      OutputStream out = socket.getOutputStream();
      long declared = 26_000_000;
      out.write(
          ("POST /v1/transcriptions HTTP/1.1\r\nHost: bolo\r\n"
                  + "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: "
                  + declared
                  + "\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      RawAnswer answer = RawAnswer.read(new BufferedInputStream(socket.getInputStream()));
      assertThat(answer.status()).as(answer.body()).isEqualTo(401);
      // 64 KiB a second: four times the default minimum rate, so no bound of the drain's ends it.
      CompletableFuture<IOException> cut =
          CompletableFuture.supplyAsync(
              () -> {
                byte[] piece = new byte[8 * 1024];
                try {
                  for (long sent = 0; sent < declared; sent += piece.length) {
                    out.write(piece);
                    out.flush();
                    Thread.sleep(125);
                  }
                  return null;
                } catch (IOException e) {
                  return e;
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return null;
                }
              });
      Await.until(() -> drains(gateway) == 1, () -> drains(gateway) + " drains");
      Thread.sleep(1_500);
      assertThat(cut).as("still sending before the stop").isNotDone();

      long started = System.nanoTime();
      gateway.app().close();
      Duration stop = Duration.ofNanos(System.nanoTime() - started);

      assertThat(cut.get(10, TimeUnit.SECONDS)).as("the client is cut off").isNotNull();
      assertThat(stop).as("the stop's time").isLessThan(Duration.ofSeconds(10));
    }
  }

  private static long drains(Gateway gateway) {
    return (long) gateway.app().metrics().get("bolo_refused_body_drains").gauge().value();
  }
}
