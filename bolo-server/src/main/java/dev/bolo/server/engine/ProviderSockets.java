package dev.bolo.server.engine;

import dev.bolo.server.upload.TransferBuffers;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import javax.net.SocketFactory;
import org.jspecify.annotations.Nullable;

/**
 * Sockets to a plain-HTTP speech provider (a recogniser on the same machine or network) whose
 * writes reach the kernel in pieces of up to {@link #WRITE_BYTES}. OkHttp (through Okio) writes a
 * request body to its socket one 8 KiB segment at a time, so a 200 KB note took 25 system calls,
 * each a TCP segment of its own; gathered, it takes 4. The client flushes after every request
 * (OkHttp ends each with a flush), so nothing is held back.
 *
 * <p>Only for {@code http://}: the JDK's TLS layer flushes after every record it writes, so over
 * TLS nothing would gather. The buffer exists only between a write and the next flush, so a pooled
 * idle connection holds none; it is taken from the gateway's {@link TransferBuffers} and given back
 * by the flush that empties it.
 */
public final class ProviderSockets extends SocketFactory {

  static final int WRITE_BYTES = TransferBuffers.SIZE;

  private final TransferBuffers buffers;

  /**
   * @param buffers where the gathering buffers come from and go back to
   */
  public ProviderSockets(TransferBuffers buffers) {
    this.buffers = buffers;
  }

  @Override
  public Socket createSocket() {
    return new GatheringSocket(buffers);
  }

  @Override
  public Socket createSocket(String host, int port) throws IOException {
    return connected(new InetSocketAddress(host, port), null);
  }

  @Override
  public Socket createSocket(String host, int port, InetAddress localHost, int localPort)
      throws IOException {
    return connected(
        new InetSocketAddress(host, port), new InetSocketAddress(localHost, localPort));
  }

  @Override
  public Socket createSocket(InetAddress host, int port) throws IOException {
    return connected(new InetSocketAddress(host, port), null);
  }

  @Override
  public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
      throws IOException {
    return connected(
        new InetSocketAddress(address, port), new InetSocketAddress(localAddress, localPort));
  }

  private Socket connected(InetSocketAddress remote, @Nullable InetSocketAddress local)
      throws IOException {
    Socket socket = createSocket();
    try {
      if (local != null) {
        socket.bind(local);
      }
      socket.connect(remote);
      return socket;
    } catch (IOException e) {
      socket.close();
      throw e;
    }
  }

  /** Whether provider connections to {@code baseUrl} gain from these sockets. */
  public static boolean helps(String baseUrl) {
    return baseUrl.regionMatches(true, 0, "http://", 0, 7);
  }

  private static final class GatheringSocket extends Socket {

    private final TransferBuffers buffers;
    private @Nullable OutputStream out;

    GatheringSocket(TransferBuffers buffers) {
      this.buffers = buffers;
    }

    @Override
    public synchronized OutputStream getOutputStream() throws IOException {
      if (out == null) {
        out = new Gathering(super.getOutputStream(), buffers);
      }
      return out;
    }
  }

  /** Gathers small writes until {@link #WRITE_BYTES} or a flush; holds no buffer in between. */
  private static final class Gathering extends OutputStream {

    private final OutputStream socket;
    private final TransferBuffers buffers;
    private byte @Nullable [] buffer;
    private int count;

    /** The thread that wrote last: the only one that may use or give back the buffer. */
    private volatile @Nullable Thread writer;

    Gathering(OutputStream socket, TransferBuffers buffers) {
      this.socket = socket;
      this.buffers = buffers;
    }

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      writer = Thread.currentThread();
      if (buffer == null && length >= WRITE_BYTES) {
        socket.write(bytes, offset, length);
        return;
      }
      while (length > 0) {
        byte[] gathered = buffer;
        if (gathered == null) {
          gathered = buffers.take();
          buffer = gathered;
        }
        int taken = Math.min(length, gathered.length - count);
        System.arraycopy(bytes, offset, gathered, count, taken);
        count += taken;
        offset += taken;
        length -= taken;
        if (count == gathered.length) {
          socket.write(gathered, 0, count);
          count = 0;
        }
      }
    }

    /**
     * Writes what was gathered and gives the buffer back. OkHttp writes and flushes a connection
     * from one thread at a time (the call's; a pooled connection passes to the next call through
     * the pool's locks) and ends every request with a flush. A flush from any other thread touches
     * no buffer. A write that fails leaves the buffer to the collector with the connection.
     */
    @Override
    public void flush() throws IOException {
      byte[] gathered = buffer;
      if (gathered != null && writer == Thread.currentThread()) {
        int n = count;
        if (n > 0) {
          socket.write(gathered, 0, n);
        }
        buffer = null;
        count = 0;
        buffers.give(gathered);
      }
      socket.flush();
    }

    /**
     * Closes the socket, first writing what its own writer gathered, but never gives a buffer back:
     * a close can come from another thread (OkHttp and Okio abandon a connection on a timeout or a
     * cancel by closing the socket itself), and only a flush after a finished request returns one.
     */
    @Override
    public void close() throws IOException {
      try {
        byte[] gathered = buffer;
        if (gathered != null && count > 0 && writer == Thread.currentThread()) {
          socket.write(gathered, 0, count);
        }
      } finally {
        socket.close();
      }
    }
  }
}
