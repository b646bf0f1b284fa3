package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The gateway's port holds as many finished handshakes for it to accept as the kernel allows
 * ({@code net.core.somaxconn}), plain and with TLS, not the 50 a Java server socket asks for by
 * default: a burst of phones connecting at once is not made to wait seconds for TCP to resend its
 * handshakes. The listen backlog is read from the kernel with iproute2's {@code ss}, which shows a
 * listening socket's backlog as its Send-Q.
 */
class AcceptQueueTest {

  @RegisterExtension final OpenAiGateway fixture = OpenAiGateway.onDemand(Map.of());

  @Test
  void thePlainPortAsksForTheKernelsWholeAcceptQueue() throws Exception {
    Gateway gateway = fixture.start(Map.of());
    assertThat(listenBacklog(gateway.app().port())).isEqualTo(kernelMaximum()).isGreaterThan(50);
  }

  @Test
  void theTlsPortToo() throws Exception {
    Gateway gateway = fixture.start(Map.of("BOLO_TLS", "on"));
    assertThat(listenBacklog(gateway.app().port())).isEqualTo(kernelMaximum()).isGreaterThan(50);
  }

  /** What Linux gives a listen backlog of 65,535: at most net.core.somaxconn. */
  private static int kernelMaximum() throws IOException {
    // Line by line: Files.readString reads a /proc file of unknown size short ("4" of "4096").
    int somaxconn =
        Integer.parseInt(
            Files.readAllLines(Path.of("/proc/sys/net/core/somaxconn")).get(0).strip());
    return Math.min(65_535, somaxconn);
  }

  private static int listenBacklog(int port) throws Exception {
    Process ss =
        new ProcessBuilder(List.of("ss", "-ltnH", "sport = :" + port))
            .redirectErrorStream(true)
            .start();
    String out = new String(ss.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(ss.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(ss.exitValue()).as(out).isZero();
    List<String> lines = out.strip().lines().toList();
    assertThat(lines).as("listening sockets on port " + port).hasSize(1);
    // State Recv-Q Send-Q Local Peer: for a listening socket Send-Q is its backlog.
    return Integer.parseInt(lines.get(0).trim().split("\\s+")[2]);
  }
}
