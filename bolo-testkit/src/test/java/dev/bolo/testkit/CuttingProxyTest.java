package dev.bolo.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CuttingProxyTest {

  /** Reads each connection to its end and counts what arrived, on one connection at a time. */
  private final ServerSocket sink = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());

  CuttingProxyTest() throws IOException {}

  @AfterEach
  void closeSink() throws IOException {
    sink.close();
  }

  @Test
  void theFirstConnectionIsCutAfterItsScriptedBytesAndTheNextPassesWhole() throws Exception {
    try (CuttingProxy proxy = CuttingProxy.start(sink.getLocalPort(), 1000)) {
      assertThat(sendThrough(proxy, 5000)).as("bytes of the cut connection").isEqualTo(1000);
      assertThat(sendThrough(proxy, 5000)).as("bytes of the next connection").isEqualTo(5000);
      assertThat(proxy.cutsDone()).isOne();
      assertThat(proxy.upstreamBytes()).isEqualTo(6000);
    }
  }

  @Test
  void cutsAddedLaterApplyToTheNextConnections() throws Exception {
    try (CuttingProxy proxy = CuttingProxy.start(sink.getLocalPort())) {
      assertThat(sendThrough(proxy, 3000)).isEqualTo(3000);
      proxy.cutAfter(100);
      assertThat(sendThrough(proxy, 3000)).isEqualTo(100);
      assertThat(proxy.cutsDone()).isOne();
    }
  }

  /** Sends {@code bytes} on a new connection through the proxy; returns how many arrived. */
  private long sendThrough(CuttingProxy proxy, int bytes) throws IOException {
    try (Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
      OutputStream out = client.getOutputStream();
      try {
        out.write(new byte[bytes]);
        client.shutdownOutput();
      } catch (IOException cut) {
        // The proxy cut the connection while the client was still writing.
      }
      try (Socket arrived = sink.accept();
          InputStream in = arrived.getInputStream()) {
        return in.transferTo(OutputStream.nullOutputStream());
      }
    }
  }
}
