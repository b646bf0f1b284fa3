package dev.bolo.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on loopback in front of a server that breaks connections the way a phone's link does:
 * the n-th connection it accepts is cut (both ways) after forwarding the n-th scripted number of
 * bytes from the client; connections beyond the script pass through ({@link #start}, {@link
 * #cutAfter}). A browser opens connections in no fixed order (pages, scripts, keep-alive pools), so
 * {@link #cuttingTheFirstConnectionPast} instead cuts whichever connection first carries that many
 * bytes from the client, once. Counts the bytes clients sent. Thread safe.
 */
public final class CuttingProxy implements AutoCloseable {

  private final ServerSocket server;
  private final int targetPort;
  private final Deque<Long> cuts = new ArrayDeque<>();
  private final AtomicLong upstreamBytes = new AtomicLong();
  private final AtomicInteger cutsDone = new AtomicInteger();

  /** Every socket either side opened, closed with the proxy: a blocked read wakes only so. */
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();

  /** Bytes after which the first connection to carry them is cut; 0 when cuts are scripted. */
  private final long firstPast;

  /** The pace of each connection's client bytes; 0 for as fast as loopback goes. */
  private final long bytesPerSecond;

  private final AtomicBoolean firstPastCut = new AtomicBoolean();

  private CuttingProxy(int targetPort, long[] cutsAfterBytes, long firstPast, long bytesPerSecond)
      throws IOException {
    this.targetPort = targetPort;
    this.firstPast = firstPast;
    this.bytesPerSecond = bytesPerSecond;
    cutAfter(cutsAfterBytes);
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    daemon("cutting-proxy", this::accept);
  }

  /**
   * A proxy to {@code targetPort} on loopback that cuts its first connections after these many
   * bytes from the client, in order; with none, it passes everything until {@link #cutAfter}.
   */
  public static CuttingProxy start(int targetPort, long... cutsAfterBytes) throws IOException {
    return new CuttingProxy(targetPort, cutsAfterBytes, 0, 0);
  }

  /**
   * A proxy to {@code targetPort} that cuts the first connection, whichever it is, on which the
   * client has sent {@code bytes} bytes; every other connection, and every later one, passes.
   * Client bytes go at most {@code bytesPerSecond} on each connection, as over a phone's link: on
   * loopback a client's whole body sits in the socket buffers before the server has read its
   * headers, so what a server refuses early would count as sent.
   */
  public static CuttingProxy cuttingTheFirstConnectionPast(
      int targetPort, long bytes, long bytesPerSecond) throws IOException {
    if (bytes < 1) {
      throw new IllegalArgumentException("bytes must be >= 1: " + bytes);
    }
    if (bytesPerSecond < 1) {
      throw new IllegalArgumentException("bytesPerSecond must be >= 1: " + bytesPerSecond);
    }
    return new CuttingProxy(targetPort, new long[0], bytes, bytesPerSecond);
  }

  /** The next connections accepted are cut after these many bytes from the client, in order. */
  public CuttingProxy cutAfter(long... bytes) {
    synchronized (cuts) {
      for (long cut : bytes) {
        cuts.add(cut);
      }
    }
    return this;
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
        sockets.add(client);
        Long cut;
        synchronized (cuts) {
          cut = cuts.pollFirst();
        }
        long limit = cut != null ? cut : firstPast > 0 ? firstPast : Long.MAX_VALUE;
        Socket target = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        sockets.add(target);
        daemon("cutting-proxy-up", () -> pump(client, target, limit, true));
        daemon("cutting-proxy-down", () -> pump(target, client, Long.MAX_VALUE, false));
      } catch (IOException e) {
        // Closed, or one connection failed: the client sees its connection fail.
      }
    }
  }

  private void pump(Socket from, Socket to, long limit, boolean upstream) {
    boolean paced = upstream && bytesPerSecond > 0;
    // Small reads when paced, so that the pace holds within a request.
    byte[] buffer = new byte[paced ? 4 * 1024 : 16 * 1024];
    long forwarded = 0;
    long cutAt = limit;
    long started = System.nanoTime();
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      int n;
      while ((n = in.read(buffer, 0, (int) Math.min(buffer.length, cutAt - forwarded))) > 0) {
        if (paced) {
          long due = started + forwarded * 1_000_000_000L / bytesPerSecond;
          long early = due - System.nanoTime();
          if (early > 0) {
            // The pace of a phone's link is the behaviour here, not a wait for something.
            Thread.sleep(early / 1_000_000, (int) (early % 1_000_000));
          } else {
            // An idle connection starts its next request at full pace, not in a burst.
            started -= early;
          }
        }
        out.write(buffer, 0, n);
        out.flush();
        forwarded += n;
        if (upstream) {
          upstreamBytes.addAndGet(n);
        }
        if (forwarded >= cutAt) {
          // In the first-past mode only one connection is cut; the others go on unlimited.
          if (firstPast > 0 && !firstPastCut.compareAndSet(false, true)) {
            cutAt = Long.MAX_VALUE;
            continue;
          }
          cutsDone.incrementAndGet();
          break;
        }
      }
    } catch (IOException e) {
      // The other side closed; close both below.
    } catch (InterruptedException e) {
      // The proxy is closing.
      Thread.currentThread().interrupt();
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private static void daemon(String name, Runnable task) {
    Thread thread = new Thread(task, name);
    thread.setDaemon(true);
    thread.start();
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
    sockets.forEach(CuttingProxy::closeQuietly);
  }
}
