package dev.bolo.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on loopback that behaves like a phone's uplink that drops: each connection is cut,
 * both ways, after the client has sent a random number of bytes through it, drawn uniformly from
 * [{@code minCutBytes}, {@code maxCutBytes}] by a seeded generator. Answers travel back untouched.
 * Counts what clients sent through it, connections and cuts. Thread-safe; two threads per
 * connection (plain blocking sockets: the bench runs a few connections at a time).
 */
final class FlakyLinkProxy implements AutoCloseable {

  private static final int BUFFER_BYTES = 64 * 1024;

  /**
   * The link's receive window: about what a mobile uplink holds in flight (10 Mbit/s over 200 ms is
   * 250 KB). Loopback's own would let several megabytes sit in kernel buffers, to be dropped unseen
   * at every cut.
   */
  static final int WINDOW_BYTES = 256 * 1024;

  private final ServerSocket listener;
  private final int targetPort;
  private final long minCutBytes;
  private final long maxCutBytes;
  private final Random random;
  private final AtomicLong bytesFromClients = new AtomicLong();
  private final AtomicLong connections = new AtomicLong();
  private final AtomicLong cuts = new AtomicLong();
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();

  FlakyLinkProxy(int targetPort, long minCutBytes, long maxCutBytes, long seed) throws IOException {
    if (minCutBytes < 1 || maxCutBytes < minCutBytes) {
      throw new IllegalArgumentException(
          "need 1 <= minCutBytes <= maxCutBytes: " + minCutBytes + ", " + maxCutBytes);
    }
    this.targetPort = targetPort;
    this.minCutBytes = minCutBytes;
    this.maxCutBytes = maxCutBytes;
    this.random = new Random(seed);
    this.listener = new ServerSocket();
    // Set before binding, so the window scale the accepted connections agree on fits it.
    listener.setReceiveBufferSize(WINDOW_BYTES);
    listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 100);
    Thread.ofPlatform().daemon().name("flaky-link-accept").start(this::accept);
  }

  int port() {
    return listener.getLocalPort();
  }

  /** Bytes read from clients, including those read but dropped at a cut. */
  long bytesFromClients() {
    return bytesFromClients.get();
  }

  long connections() {
    return connections.get();
  }

  long cuts() {
    return cuts.get();
  }

  private synchronized long nextCut() {
    return minCutBytes + (long) (random.nextDouble() * (maxCutBytes - minCutBytes + 1));
  }

  private void accept() {
    while (!listener.isClosed()) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException closed) {
        return;
      }
      try {
        Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        open.add(client);
        open.add(server);
        connections.incrementAndGet();
        long cut = nextCut();
        Thread.ofPlatform().daemon().start(() -> upstream(client, server, cut));
        Thread.ofPlatform().daemon().start(() -> downstream(server, client));
      } catch (IOException unreachable) {
        close(client);
      }
    }
  }

  /** Client to gateway: forwards {@code cut} bytes, then drops the link. */
  private void upstream(Socket client, Socket server, long cut) {
    byte[] buffer = new byte[BUFFER_BYTES];
    long left = cut;
    try {
      InputStream in = client.getInputStream();
      OutputStream out = server.getOutputStream();
      for (int n; (n = in.read(buffer)) != -1; ) {
        bytesFromClients.addAndGet(n);
        if (n >= left) {
          // The link drops here: what fits goes through, the rest of this read is lost.
          out.write(buffer, 0, (int) left);
          out.flush();
          cuts.incrementAndGet();
          return;
        }
        out.write(buffer, 0, n);
        out.flush();
        left -= n;
      }
    } catch (IOException e) {
      // One side went away; both are closed below.
    } finally {
      close(client);
      close(server);
    }
  }

  private void downstream(Socket server, Socket client) {
    byte[] buffer = new byte[BUFFER_BYTES];
    try {
      InputStream in = server.getInputStream();
      OutputStream out = client.getOutputStream();
      for (int n; (n = in.read(buffer)) != -1; ) {
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // As above.
    } finally {
      close(client);
      close(server);
    }
  }

  private void close(Socket socket) {
    open.remove(socket);
    try {
      socket.close();
    } catch (IOException e) {
      // Closing was the point.
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
    open.forEach(this::close);
  }
}
