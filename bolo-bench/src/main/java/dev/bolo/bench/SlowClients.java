package dev.bolo.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Attackers for {@link GatewayLoad}, in their own JVM: {@code --connections N} sockets to the
 * gateway, half sending their request headers one byte every two seconds, half sending valid
 * headers (a real device token) and then a multipart body at one byte per second. Whenever the
 * gateway cuts one off, it reconnects at once, so N connections keep pressing until the process is
 * stopped. Every five seconds it prints how many are open, opened and cut off.
 *
 * <p>Usage: {@code SlowClients --port N --connections 2000 --token TOKEN}
 */
public final class SlowClients {

  private SlowClients() {}

  public static void main(String[] args) throws InterruptedException {
    int port = 0;
    int connections = 2000;
    String token = "";
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--port" -> port = Integer.parseInt(args[i + 1]);
        case "--connections" -> connections = Integer.parseInt(args[i + 1]);
        case "--token" -> token = args[i + 1];
        default -> throw new IllegalArgumentException("unknown option: " + args[i]);
      }
    }
    AtomicLong open = new AtomicLong();
    AtomicLong opened = new AtomicLong();
    AtomicLong cutOff = new AtomicLong();
    int target = port;
    String bearer = token;
    ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    for (int i = 0; i < connections; i++) {
      boolean slowHeaders = i % 2 == 0;
      threads.submit(
          () -> {
            while (!Thread.currentThread().isInterrupted()) {
              try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", target), 5_000);
                open.incrementAndGet();
                opened.incrementAndGet();
                try {
                  trickle(socket.getOutputStream(), slowHeaders, bearer);
                } finally {
                  open.decrementAndGet();
                }
              } catch (IOException e) {
                cutOff.incrementAndGet();
              } catch (InterruptedException e) {
                return null;
              }
            }
            return null;
          });
    }
    while (true) {
      Thread.sleep(5_000);
      System.out.printf(
          "open %d, opened %d, cut off by the gateway %d%n",
          open.get(), opened.get(), cutOff.get());
    }
  }

  private static void trickle(OutputStream out, boolean slowHeaders, String token)
      throws IOException, InterruptedException {
    String boundary = "slow-boundary";
    String headers =
        "POST /v1/transcriptions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
            + token
            + "\r\nContent-Type: multipart/form-data; boundary="
            + boundary
            + "\r\nContent-Length: 2000000\r\n\r\n";
    byte[] bytes = headers.getBytes(StandardCharsets.US_ASCII);
    if (slowHeaders) {
      for (byte b : bytes) {
        out.write(b);
        out.flush();
        Thread.sleep(2_000);
      }
      return;
    }
    out.write(bytes);
    out.write(
        ("--"
                + boundary
                + "\r\nContent-Disposition: form-data; name=\"audio\"; filename=\"a.wav\""
                + "\r\n\r\nRIFF")
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
    while (true) {
      Thread.sleep(1_000);
      out.write(0);
      out.flush();
    }
  }
}
