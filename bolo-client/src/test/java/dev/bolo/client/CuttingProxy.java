package dev.bolo.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on loopback that cuts connections as a phone's link drops: the n-th connection is
 * closed, both ways, once the client has sent the n-th scripted number of bytes through it;
 * connections beyond the script pass everything. Counts the bytes clients sent. For tests.
 */
final class CuttingProxy implements AutoCloseable {

  private final ServerSocket listener;
  private final InetSocketAddress target;
  private final Deque<Long> budgets = new ArrayDeque<>();
  private final AtomicLong bytesFromClients = new AtomicLong();
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final Thread acceptor;

  CuttingProxy(InetSocketAddress target) throws IOException {
    this.target = target;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.acceptor = new Thread(this::accept, "cutting-proxy");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** The next connections are cut after these many bytes from the client, in order. */
  synchronized CuttingProxy cutAfter(long... bytes) {
    for (long b : bytes) {
      budgets.add(b);
    }
    return this;
  }

  int port() {
    return listener.getLocalPort();
  }

  long bytesFromClients() {
    return bytesFromClients.get();
  }

  private synchronized long nextBudget() {
    Long budget = budgets.pollFirst();
    return budget == null ? Long.MAX_VALUE : budget;
  }

  private void accept() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket(target.getAddress(), target.getPort());
        sockets.add(client);
        sockets.add(server);
        long budget = nextBudget();
        pump(client, server, budget, true);
        pump(server, client, Long.MAX_VALUE, false);
      } catch (IOException closed) {
        return;
      }
    }
  }

  private void pump(Socket from, Socket to, long budget, boolean fromClient) {
    Thread pump =
        new Thread(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              long left = budget;
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                for (int n;
                    left > 0
                        && (n = in.read(buffer, 0, (int) Math.min(buffer.length, left))) != -1; ) {
                  out.write(buffer, 0, n);
                  out.flush();
                  left -= n;
                  if (fromClient) {
                    bytesFromClients.addAndGet(n);
                  }
                }
              } catch (IOException e) {
                // The other direction closed the sockets.
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "cutting-proxy-pump");
    pump.setDaemon(true);
    pump.start();
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // Closing is all we wanted.
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
    sockets.forEach(CuttingProxy::closeQuietly);
  }
}
