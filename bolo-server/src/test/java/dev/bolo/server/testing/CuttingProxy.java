package dev.bolo.server.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on loopback in front of a gateway that breaks connections the way a phone's link
 * does: the n-th connection it accepts is cut (both ways) after forwarding the n-th scripted number
 * of bytes from the client; connections beyond the script pass through. Counts the bytes clients
 * sent. Thread safe.
 */
public final class CuttingProxy implements AutoCloseable {

  private final ServerSocket server;
  private final int targetPort;
  private final Deque<Long> cuts = new ArrayDeque<>();
  private final AtomicLong upstreamBytes = new AtomicLong();
  private final AtomicInteger cutsDone = new AtomicInteger();
  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

  private CuttingProxy(int targetPort, long[] cutsAfterBytes) throws IOException {
    this.targetPort = targetPort;
    for (long cut : cutsAfterBytes) {
      cuts.add(cut);
    }
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    threads.execute(this::accept);
  }

  /** A proxy to {@code targetPort} that cuts its first connections after these many bytes. */
  public static CuttingProxy start(int targetPort, long... cutsAfterBytes) throws IOException {
    return new CuttingProxy(targetPort, cutsAfterBytes);
  }

  public int port() {
    return server.getLocalPort();
  }

  public String url(String path) {
    return "http://127.0.0.1:" + port() + path;
  }

  /** Bytes clients sent through the proxy, on every connection. */
  public long upstreamBytes() {
    return upstreamBytes.get();
  }

  /** Connections cut so far. */
  public int cutsDone() {
    return cutsDone.get();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Long cut;
        synchronized (cuts) {
          cut = cuts.pollFirst();
        }
        long limit = cut == null ? Long.MAX_VALUE : cut;
        Socket target = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        threads.execute(() -> pump(client, target, limit, true));
        threads.execute(() -> pump(target, client, Long.MAX_VALUE, false));
      } catch (IOException e) {
        // Closed, or one connection failed: the client sees its connection fail.
      }
    }
  }

  private void pump(Socket from, Socket to, long limit, boolean upstream) {
    byte[] buffer = new byte[16 * 1024];
    long forwarded = 0;
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      int n;
      while ((n = in.read(buffer, 0, (int) Math.min(buffer.length, limit - forwarded))) > 0) {
        out.write(buffer, 0, n);
        out.flush();
        forwarded += n;
        if (upstream) {
          upstreamBytes.addAndGet(n);
        }
        if (forwarded >= limit) {
          cutsDone.incrementAndGet();
          break;
        }
      }
    } catch (IOException e) {
      // The other side closed; close both below.
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // Already closed.
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    threads.shutdownNow();
  }
}
