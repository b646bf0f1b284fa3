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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
   * A client sending a refused note well above the minimum rate, which a drain reads for more than
   * a minute and a half, is cut off by the stop, and the stop does not wait for it (20 ms here).
   */
  @Test
  void aClientStillSendingARefusedNoteDoesNotHoldTheStop() throws Exception {
    Gateway gateway = fixture.start(Map.of());
    // The sender and the stop each on a thread of their own: the common pool may have only one.
    try (ExecutorService own = Executors.newThreadPerTaskExecutor(Thread.ofPlatform().factory());
        Socket socket = new Socket("127.0.0.1", gateway.app().port())) {
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
      // 256 KiB a second: sixteen times the default minimum rate, so no bound of the drain's ends
      // it before the stop, even with a busy machine slowing the sender down several times over.
      CompletableFuture<IOException> cut =
          CompletableFuture.supplyAsync(
              () -> {
                byte[] piece = new byte[32 * 1024];
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
              },
              own);
      Await.until(() -> drains(gateway) == 1, () -> drains(gateway) + " drains");
      assertThat(cut).as("still sending before the stop").isNotDone();

      // The whole note would take 100 s more at this rate: a stop that waited for it would not
      // end within the deadline below, nor would the client be cut off.
      CompletableFuture<Void> stopped = CompletableFuture.runAsync(gateway.app()::close, own);

      stopped.get(60, TimeUnit.SECONDS);
      assertThat(cut.get(60, TimeUnit.SECONDS)).as("the client is cut off").isNotNull();
    }
  }

  private static long drains(Gateway gateway) {
    return (long) gateway.app().metrics().get("bolo_refused_body_drains").gauge().value();
  }
}
