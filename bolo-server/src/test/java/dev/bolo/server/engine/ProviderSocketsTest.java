package dev.bolo.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bolo.server.upload.TransferBuffers;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.tls.HandshakeCertificates;
import okhttp3.tls.HeldCertificate;
import org.junit.jupiter.api.Test;

class ProviderSocketsTest {

  @Test
  void smallWritesReachThePeerTogetherAtTheFlushAndIntact() throws Exception {
    try (Connected connected = Connected.open()) {
      OutputStream out = connected.client().getOutputStream();
      InputStream in = connected.peer().getInputStream();
      byte[] note = new byte[200_000];
      for (int i = 0; i < note.length; i++) {
        note[i] = (byte) (i * 31);
      }

      // Seven 8 KiB writes, as Okio makes them: gathered, none has reached the peer yet.
      for (int i = 0; i < 7; i++) {
        out.write(note, i * 8192, 8192);
      }
      assertNothingArrivesWithin(connected.peer(), Duration.ofMillis(100));

      out.write(note, 7 * 8192, note.length - 7 * 8192);
      out.flush();
      byte[] received = in.readNBytes(note.length);
      assertThat(Arrays.equals(received, note)).isTrue();
    }
  }

  @Test
  void requestAfterRequestReusesOneBufferAndNoneCarriesAnEarlierRequestsBytes() throws Exception {
    var threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    try (Connected connected = Connected.open()) {
      OutputStream out = connected.client().getOutputStream();
      InputStream in = connected.peer().getInputStream();
      java.util.Random random = new java.util.Random(7);
      long allocated = 0;
      for (int request = 0; request < 40; request++) {
        // Longer and shorter requests in turn: a short one after a long one must carry only its
        // own bytes, although the buffer it gathers in still holds the long one's.
        byte[] body = new byte[request % 2 == 0 ? 50_000 : 3_000];
        random.nextBytes(body);
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int at = 0; at < body.length; at += 8192) {
          out.write(body, at, Math.min(8192, body.length - at));
        }
        out.flush();
        if (request >= 10) {
          allocated += threads.getCurrentThreadAllocatedBytes() - before;
        }
        assertThat(Arrays.equals(in.readNBytes(body.length), body)).isTrue();
      }
      // Writing and flushing allocated a fresh 64 KiB buffer per request before.
      assertThat(allocated / 30).as("bytes allocated per request written").isLessThan(8_192L);
    }
  }

  @Test
  void anotherThreadsFlushLeavesTheWritersBufferAloneAndItsCloseAbandonsWhatIsGathered()
      throws Exception {
    try (Connected connected = Connected.open()) {
      OutputStream out = connected.client().getOutputStream();
      InputStream peer = connected.peer().getInputStream();
      out.write(new byte[] {4, 5, 6}, 0, 3);
      onAnotherThread(out::flush);
      assertNothingArrivesWithin(connected.peer(), Duration.ofMillis(100));
      out.flush();
      assertThat(peer.readNBytes(3)).containsExactly(4, 5, 6);

      out.write(new byte[] {1, 2, 3}, 0, 3);
      onAnotherThread(out::close);
      // Nothing gathered went out: the other thread only abandoned the connection.
      assertThat(peer.read()).isEqualTo(-1);
      assertThatThrownBy(out::flush).isInstanceOf(IOException.class);
    }
  }

  @Test
  void onlyPlainHttpProvidersGetGatheringSockets() {
    assertThat(ProviderSockets.helps("http://127.0.0.1:9000/v1")).isTrue();
    assertThat(ProviderSockets.helps("HTTP://whisper.lan/v1")).isTrue();
    assertThat(ProviderSockets.helps("https://api.openai.com/v1")).isFalse();
  }

  @Test
  void aWriteAsLargeAsTheBufferGoesStraightThroughAndWritesLeftBeforeItFollowIt() throws Exception {
    try (Connected connected = Connected.open()) {
      byte[] big = new byte[ProviderSockets.WRITE_BYTES * 2 + 5];
      new java.util.Random(3).nextBytes(big);
      connected.client().getOutputStream().write(big, 0, 10);
      connected.client().getOutputStream().write(big, 10, big.length - 10);
      connected.client().getOutputStream().write(big[0]);
      connected.client().getOutputStream().flush();
      byte[] received = connected.peer().getInputStream().readNBytes(big.length + 1);
      assertThat(Arrays.copyOf(received, big.length)).isEqualTo(big);
      assertThat(received[big.length]).isEqualTo(big[0]);
    }
  }

  @Test
  void aConnectedSocketWritesThroughTheSameGathering() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Socket client =
            new ProviderSockets(new TransferBuffers())
                .createSocket("127.0.0.1", server.getLocalPort());
        Socket peer = server.accept()) {
      assertThat(client.getOutputStream()).isSameAs(client.getOutputStream());
      client.getOutputStream().write(new byte[] {1, 2, 3});
      assertNothingArrivesWithin(peer, Duration.ofMillis(50));
      client.getOutputStream().flush();
      assertThat(peer.getInputStream().readNBytes(3)).containsExactly(1, 2, 3);
    }
  }

  @Test
  void aTlsProviderGetsTheWholeBodyThroughGatheredSockets() throws Exception {
    HeldCertificate certificate =
        new HeldCertificate.Builder().addSubjectAlternativeName("localhost").build();
    HandshakeCertificates serverCertificates =
        new HandshakeCertificates.Builder().heldCertificate(certificate).build();
    HandshakeCertificates clientCertificates =
        new HandshakeCertificates.Builder()
            .addTrustedCertificate(certificate.certificate())
            .build();
    try (MockWebServer provider = new MockWebServer()) {
      provider.useHttps(serverCertificates.sslSocketFactory());
      provider.enqueue(new MockResponse.Builder().body("{\"text\":\"hello\"}").build());
      provider.start();
      OkHttpClient client =
          new OkHttpClient.Builder()
              .socketFactory(new ProviderSockets(new TransferBuffers()))
              .sslSocketFactory(
                  clientCertificates.sslSocketFactory(), clientCertificates.trustManager())
              .build();
      byte[] note = new byte[200_000];
      new java.util.Random(7).nextBytes(note);

      try (Response answer =
          client
              .newCall(
                  new Request.Builder()
                      .url(provider.url("/v1/audio/transcriptions"))
                      .post(RequestBody.create(note, MediaType.get("audio/wav")))
                      .build())
              .execute()) {
        assertThat(answer.body().string()).isEqualTo("{\"text\":\"hello\"}");
      }
      RecordedRequest received = provider.takeRequest();
      assertThat(received.getHandshake()).isNotNull();
      assertThat(Objects.requireNonNull(received.getBody()).toByteArray()).isEqualTo(note);
    }
  }

  /**
   * Reads from {@code peer} for {@code quiet}: no byte may arrive in that time. The socket stays
   * usable after the timeout.
   */
  private static void assertNothingArrivesWithin(Socket peer, Duration quiet) throws IOException {
    peer.setSoTimeout((int) quiet.toMillis());
    try {
      assertThatThrownBy(() -> peer.getInputStream().read())
          .as("a byte reached the peer")
          .isInstanceOf(SocketTimeoutException.class);
    } finally {
      peer.setSoTimeout(0);
    }
  }

  /** What a socket's other users do: OkHttp's watchdog, a cancel. */
  private interface SocketAction {
    void run() throws IOException;
  }

  private static void onAnotherThread(SocketAction action) throws InterruptedException {
    Thread.ofVirtual()
        .start(
            () -> {
              try {
                action.run();
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            })
        .join();
  }

  /** A gathering socket to a peer on loopback, and the peer's end. */
  private record Connected(ServerSocket server, Socket client, Socket peer)
      implements AutoCloseable {

    static Connected open() throws IOException {
      ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
      Socket client =
          new ProviderSockets(new TransferBuffers())
              .createSocket(InetAddress.getLoopbackAddress(), server.getLocalPort());
      return new Connected(server, client, server.accept());
    }

    @Override
    public void close() throws IOException {
      try (server;
          client;
          peer) {
        // closes all three
      }
    }
  }
}
