package dev.bolo.bench;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.SocketFactory;

/**
 * Sockets that count the bytes the SDK hands them to send, into one counter shared by every socket;
 * safe to use from any thread.
 */
final class CountingSocketFactory extends SocketFactory {
  private final AtomicLong written;

  CountingSocketFactory(AtomicLong written) {
    this.written = written;
  }

  @Override
  public Socket createSocket() {
    return new CountingSocket(written);
  }

  // OkHttp asks only for unconnected sockets and connects them itself; the connecting forms
  // resolve the host and connect as the JDK's own factory does.
  @Override
  public Socket createSocket(String host, int port) throws IOException {
    return createSocket(InetAddress.getByName(host), port);
  }

  @Override
  public Socket createSocket(String host, int port, InetAddress localHost, int localPort)
      throws IOException {
    return createSocket(InetAddress.getByName(host), port, localHost, localPort);
  }

  @Override
  public Socket createSocket(InetAddress host, int port) throws IOException {
    Socket socket = createSocket();
    socket.connect(new InetSocketAddress(host, port));
    return socket;
  }

  @Override
  public Socket createSocket(InetAddress host, int port, InetAddress localHost, int localPort)
      throws IOException {
    Socket socket = createSocket();
    socket.bind(new InetSocketAddress(localHost, localPort));
    socket.connect(new InetSocketAddress(host, port));
    return socket;
  }

  private static final class CountingSocket extends Socket {
    private final AtomicLong written;

    CountingSocket(AtomicLong written) {
      this.written = written;
    }

    @Override
    public OutputStream getOutputStream() throws IOException {
      return new FilterOutputStream(super.getOutputStream()) {
        @Override
        public void write(int b) throws IOException {
          out.write(b);
          written.incrementAndGet();
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
          out.write(b, off, len);
          written.addAndGet(len);
        }
      };
    }
  }
}
