package dev.bolo.server.engine;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import javax.net.SocketFactory;
import org.jspecify.annotations.Nullable;

/**
 * Sockets to the speech provider whose writes reach the kernel in pieces of up to {@link
 * #WRITE_BYTES}. OkHttp (through Okio) writes a request body to its socket one 8 KiB segment at a
 * time, so a 200 KB note took 25 system calls, each a TCP segment of its own; gathered, it takes 4.
 * The client flushes after every request (OkHttp ends each with a flush), so nothing is held back.
 * A TLS socket layered on one of these writes through it, record by record.
 */
public final class ProviderSockets extends SocketFactory {

  static final int WRITE_BYTES = 64 * 1024;

  @Override
  public Socket createSocket() {
    return new GatheringSocket();
  }

  @Override
  public Socket createSocket(String host, int port) throws IOException {
    Socket socket = createSocket();
    socket.connect(new java.net.InetSocketAddress(host, port));
    return socket;
  }

  @Override
  public Socket createSocket(String host, int port, InetAddress localHost, int localPort)
      throws IOException {
    Socket socket = createSocket();
    socket.bind(new java.net.InetSocketAddress(localHost, localPort));
    socket.connect(new java.net.InetSocketAddress(host, port));
    return socket;
  }

  @Override
  public Socket createSocket(InetAddress host, int port) throws IOException {
    Socket socket = createSocket();
    socket.connect(new java.net.InetSocketAddress(host, port));
    return socket;
  }

  @Override
  public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
      throws IOException {
    Socket socket = createSocket();
    socket.bind(new java.net.InetSocketAddress(localAddress, localPort));
    socket.connect(new java.net.InetSocketAddress(address, port));
    return socket;
  }

  private static final class GatheringSocket extends Socket {

    private @Nullable OutputStream out;

    @Override
    public synchronized OutputStream getOutputStream() throws IOException {
      if (out == null) {
        out = new BufferedOutputStream(super.getOutputStream(), WRITE_BYTES);
      }
      return out;
    }
  }
}
