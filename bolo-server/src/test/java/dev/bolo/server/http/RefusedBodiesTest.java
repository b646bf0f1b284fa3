package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.RawAnswer;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A request answered before its body was read (no token, a path the gateway lacks) holds nothing of
 * the gateway's while its client goes on sending: it leaves the upload line at once, so clients
 * without a token trickling their bodies cannot keep the devices' notes out; what still arrives is
 * read and dropped only at the minimum body rate, then the connection closes; and a client sending
 * at full speed still reads its answer.
 */
class RefusedBodiesTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** What a trickling client declares: a note of the largest kind, of which it sends a byte. */
  private static final long DECLARED_BYTES = 26_000_000;

  @RegisterExtension
  final OpenAiGateway fixture =
      OpenAiGateway.onDemand(
          Map.of(
              // Far longer than the test: only the gateway's own bounds may end a connection.
              "BOLO_IDLE_TIMEOUT", "120s"));

  /**
   * The check: 30 clients without a token, each trickling a note's body, against a gateway
   * serving 8 uploads at once. Each gets its 401 at once, and while all 30 stay connected a
   * device's note is transcribed (before, the first 8 held every place while their bodies were
   * read, the next 16 waited in line, and the note was turned away with 503). The same with a
   * guessed token, which waits its turn like a device's upload until the gate refuses it.
   */
  @ParameterizedTest
  @ValueSource(strings = {"", "Authorization: Bearer a-guess-of-no-device\r\n"})
  void thirtyTricklersWithoutAKnownTokenHoldNoPlaceAndADevicesNoteIsTranscribedMeanwhile(
      String authorization) throws Exception {
    Gateway gateway =
        fixture.start(
            Map.of(
                "BOLO_MAX_CONCURRENT_REQUESTS", "8",
                // The tricklers stay connected for the whole test.
                "BOLO_BODY_RATE_WINDOW", "120s",
                // 30 guesses from one address: this test is about their bodies, not their count
                // (WrongTokenLimitTest holds the count's limit).
                "BOLO_WRONG_TOKENS_PER_MINUTE", "100"));
    List<Socket> tricklers = new ArrayList<>();
    try {
      // Each starts once the one before has its answer: a guess waits in the line of 16 (twice
      // the 8 served) until the gate refuses it, and 30 arriving together on a busy machine would
      // find that line full (503, rightly) before any of the first 8 was refused.
      for (int i = 0; i < 30; i++) {
        Socket trickler = startUpload(gateway, "/v1/transcriptions", authorization);
        tricklers.add(trickler);
        RawAnswer answer = RawAnswer.read(new BufferedInputStream(trickler.getInputStream()));
        assertThat(answer.status()).as(answer.body()).isEqualTo(401);
        assertThat(JSON.readTree(answer.body()).path("code").asText()).isEqualTo("unauthorized");
        assertThat(answer.header("Connection")).isEqualTo("close");
      }

      Gateway.Reply note = gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, wav()));

      assertThat(note.status()).as(note.body()).isEqualTo(200);
      assertThat(waiting(gateway)).isZero();
    } finally {
      for (Socket trickler : tricklers) {
        trickler.close();
      }
    }
  }

  /**
   * A client that goes on trickling after its answer is cut off once a rate window has passed;
   * before, the gateway read a refused body for as long as bytes kept coming, up to 26 MiB.
   */
  @ParameterizedTest
  @ValueSource(strings = {"/v1/transcriptions", "/v1/audio/transcriptions", "/v1/no-such-path"})
  void aRefusedBodyTricklingBelowTheMinimumRateHasItsConnectionClosed(String path)
      throws Exception {
    Gateway gateway = fixture.start(Map.of("BOLO_BODY_RATE_WINDOW", "1s"));
    try (Socket trickler = startUpload(gateway, path, "")) {
      RawAnswer answer = RawAnswer.read(new BufferedInputStream(trickler.getInputStream()));
      assertThat(answer.status()).as(answer.body()).isIn(401, 404);

      CompletableFuture<IOException> cutOff = new CompletableFuture<>();
      Thread.ofVirtual()
          .start(
              () -> {
                try {
                  OutputStream out = trickler.getOutputStream();
                  while (true) {
                    out.write('x');
                    out.flush();
                    // The client's slowness is the behaviour under test.
                    Thread.sleep(100);
                  }
                } catch (IOException e) {
                  cutOff.complete(e);
                } catch (InterruptedException e) {
                  cutOff.completeExceptionally(e);
                }
              });

      assertThat(cutOff.get(30, TimeUnit.SECONDS))
          .as("the gateway closed the connection")
          .isNotNull();
    }
  }

  /** The reason the gateway reads a refused body at all: a phone still sending reads its 401. */
  @Test
  void aClientSendingARefusedNoteAtFullSpeedReadsItsAnswer() throws Exception {
    Gateway gateway = fixture.start(Map.of("BOLO_BODY_RATE_WINDOW", "1s"));
    byte[] large = new byte[8_000_000];
    Request upload =
        new Request.Builder()
            .url(gateway.url("/v1/transcriptions"))
            .header("Content-Type", "multipart/form-data; boundary=b")
            .post(RequestBody.create(large, MediaType.get("multipart/form-data; boundary=b")))
            .build();

    Gateway.Reply refused = gateway.send(upload);

    assertThat(refused.status()).as(refused.body()).isEqualTo(401);
    assertThat(JSON.readTree(refused.body()).path("code").asText()).isEqualTo("unauthorized");
  }

  /**
   * A client that reads nothing until its whole body is sent (Node's fetch, the OpenAI Node SDK)
   * sends all of a refused note without a reset and then reads its answer, and the gateway ends the
   * connection after it. Before, Jetty closed the connection with the body still arriving: the
   * client's next write met a reset, and a client that had not yet read the answer lost it.
   */
  @ParameterizedTest
  @ValueSource(strings = {"/v1/transcriptions", "/v1/no-such-path"})
  void aClientThatReadsOnlyAfterSendingItsWholeRefusedNoteSendsItAllAndReadsItsAnswer(String path)
      throws Exception {
    Gateway gateway = fixture.start(Map.of());
    try (Socket socket = new Socket("127.0.0.1", gateway.app().port())) {
      assertSendsAllThenReadsItsAnswer(socket, path);
    }
  }

  /** The same over TLS, where the connection's bytes pass through Jetty's decrypting end point. */
  @Test
  void overTlsAClientThatReadsOnlyAfterSendingItsWholeRefusedNoteReadsItsAnswer() throws Exception {
    Gateway gateway = fixture.start(Map.of("BOLO_TLS", "on"));
    try (SSLSocket socket = (SSLSocket) gateway.secureClient().sslSocketFactory().createSocket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", gateway.app().port()), 5_000);
      socket.startHandshake();
      assertSendsAllThenReadsItsAnswer(socket, "/v1/transcriptions");
    }
  }

  /**
   * A device's upload turned away by the line of requests served (Jetty's own 503, every place
   * taken and no wait allowed) is answered as every refused body: a client that reads only after
   * sending reads the 503 and its {@code Retry-After}, which it would resend by, not a reset.
   */
  @Test
  void anUploadTurnedAwayByAFullLineSendsItAllAndReadsIts503() throws Exception {
    Gateway gateway =
        fixture.start(Map.of("BOLO_MAX_CONCURRENT_REQUESTS", "1", "BOLO_REQUEST_QUEUE_WAIT", "0s"));
    CompletableFuture<Gateway.Reply> held = takeTheOnePlace(gateway);

    try (Socket socket = new Socket("127.0.0.1", gateway.app().port())) {
      RawAnswer answer =
          sendAllThenRead(
              socket, "/v1/transcriptions", "Authorization: Bearer " + Gateway.TOKEN_B + "\r\n");
      assertThat(answer.status()).as(answer.body()).isEqualTo(503);
      assertThat(answer.header("Retry-After")).isNotNull();
      assertThat(JSON.readTree(answer.body()).path("code").asText())
          .isEqualTo("server_unavailable");
    }
    fixture.provider().release();
    assertThat(held.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
  }

  /**
   * What is read after an answer has a bound whatever the rate: a client that goes on sending at
   * full speed is cut off once it has sent more than any refused note, not before.
   */
  @Test
  void aClientSendingMoreThanAnyNoteAfterItsAnswerIsCutOffOnceItHasSentThatMuch() throws Exception {
    Gateway gateway = fixture.start(Map.of());
    long declared = 3 * ClosingConnections.MAX_DISCARD_BYTES;
    try (Socket socket = new Socket("127.0.0.1", gateway.app().port())) {
      socket.setSoTimeout((int) Duration.ofSeconds(60).toMillis());
      OutputStream out = socket.getOutputStream();
      out.write(uploadHead("/v1/transcriptions", "", declared));
      long sent = 0;
      IOException cutOff = null;
      byte[] piece = new byte[64 * 1024];
      try {
        while (sent < declared) {
          out.write(piece);
          sent += piece.length;
        }
      } catch (IOException e) {
        cutOff = e;
      }

      assertThat(cutOff).as("the gateway closed the connection").isNotNull();
      assertThat(sent)
          .as("bytes sent before the cut")
          .isGreaterThan(ClosingConnections.MAX_DISCARD_BYTES);
    }
  }

  /**
   * The connections draining refused bodies are bounded in number: with {@link
   * ClosingConnections#MAX_DRAINS} clients trickling after their answers, the next refused client
   * is cut off as Jetty cuts it; once those clients go, their places are free again.
   */
  @Test
  void noMoreThanTheMostDrainsAtOnceAndAClosedDrainFreesItsPlace() throws Exception {
    Gateway gateway = fixture.start(Map.of());
    List<Socket> tricklers = new ArrayList<>();
    try {
      for (int i = 0; i < ClosingConnections.MAX_DRAINS; i++) {
        Socket trickler = startUpload(gateway, "/v1/transcriptions", "");
        tricklers.add(trickler);
        RawAnswer answer = RawAnswer.read(new BufferedInputStream(trickler.getInputStream()));
        assertThat(answer.status()).as(answer.body()).isEqualTo(401);
      }
      // A drain begins once its request has ended, a moment after the answer is read.
      Await.until(
          () -> drains(gateway) == ClosingConnections.MAX_DRAINS,
          () -> drains(gateway) + " drains");
      try (Socket beyond = new Socket("127.0.0.1", gateway.app().port())) {
        assertThatThrownBy(() -> assertSendsAllThenReadsItsAnswer(beyond, "/v1/transcriptions"))
            .as("a refused client beyond the bound")
            .isInstanceOf(IOException.class);
      }
    } finally {
      for (Socket trickler : tricklers) {
        trickler.close();
      }
    }
    Await.until(() -> drains(gateway) == 0, () -> drains(gateway) + " drains left");
    Await.until(
        Duration.ofSeconds(30),
        "a refused client drained once the tricklers are gone",
        () -> {
          try (Socket next = new Socket("127.0.0.1", gateway.app().port())) {
            assertSendsAllThenReadsItsAnswer(next, "/v1/transcriptions");
            return true;
          } catch (IOException e) {
            return false;
          }
        });
  }

  /**
   * Sends a refused upload of 9.6 MB to {@code path} on {@code socket} without reading, then reads
   * the answer and the end of the connection.
   */
  private static void assertSendsAllThenReadsItsAnswer(Socket socket, String path)
      throws IOException {
    RawAnswer answer = sendAllThenRead(socket, path, "");
    assertThat(answer.status()).as(answer.body()).isIn(401, 404);
    assertThat(JSON.readTree(answer.body()).path("code").asText())
        .isIn("unauthorized", "not_found");
  }

  /**
   * Sends an upload of 9.6 MB to {@code path} on {@code socket}, with the header line {@code
   * authorization} (or none), without reading; then reads the answer, and the end of the
   * connection.
   */
  private static RawAnswer sendAllThenRead(Socket socket, String path, String authorization)
      throws IOException {
    socket.setSoTimeout((int) Duration.ofSeconds(60).toMillis());
    int bodyBytes = 9_600_000;
    OutputStream out = socket.getOutputStream();
    out.write(uploadHead(path, authorization, bodyBytes));
    byte[] piece = new byte[64 * 1024];
    for (int sent = 0; sent < bodyBytes; sent += piece.length) {
      out.write(piece, 0, Math.min(piece.length, bodyBytes - sent));
    }
    out.flush();

    BufferedInputStream in = new BufferedInputStream(socket.getInputStream());
    RawAnswer answer = RawAnswer.read(in);
    assertThat(in.read()).as("the gateway ends the connection after its answer").isEqualTo(-1);
    return answer;
  }

  private static byte[] uploadHead(String path, String authorization, long bodyBytes) {
    return ("POST "
            + path
            + " HTTP/1.1\r\nHost: bolo\r\n"
            + authorization
            + "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: "
            + bodyBytes
            + "\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * A request without a token never waits its turn: the gate answers it at once, so such requests
   * cannot fill the line the devices' uploads wait in.
   */
  @Test
  void anUploadWithoutATokenIsAnswered401AtOnceWhenEveryPlaceIsTaken() throws Exception {
    Gateway gateway =
        fixture.start(Map.of("BOLO_MAX_CONCURRENT_REQUESTS", "1", "BOLO_REQUEST_QUEUE_WAIT", "0s"));
    CompletableFuture<Gateway.Reply> held = takeTheOnePlace(gateway);

    Gateway.Reply tokenless = gateway.send(gateway.nativeUpload(null, wav()));
    Gateway.Reply device = gateway.send(gateway.nativeUpload(Gateway.TOKEN_B, wav()));

    assertThat(tokenless.status()).as(tokenless.body()).isEqualTo(401);
    assertThat(device.status()).as("the one place is taken: " + device.body()).isEqualTo(503);
    fixture.provider().release();
    assertThat(held.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
  }

  /**
   * Holds the provider and sends device A's note, which takes the one place of a gateway serving
   * one upload at once; returns its reply, which comes once the provider is released.
   */
  private CompletableFuture<Gateway.Reply> takeTheOnePlace(Gateway gateway)
      throws InterruptedException {
    fixture.provider().hold();
    CompletableFuture<Gateway.Reply> held = new CompletableFuture<>();
    Thread.ofVirtual()
        .start(
            () -> {
              try {
                held.complete(gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, wav())));
              } catch (IOException e) {
                held.completeExceptionally(e);
              }
            });
    Await.until(() -> fixture.provider().calls() == 1, () -> "the note at the provider");
    return held;
  }

  /**
   * Opens a connection and sends the head of an upload of {@link #DECLARED_BYTES} to {@code path},
   * with the header line {@code authorization} (or none), and the first byte of its body, as a
   * client trickling it does.
   */
  private static Socket startUpload(Gateway gateway, String path, String authorization)
      throws IOException {
    Socket socket = new Socket("127.0.0.1", gateway.app().port());
    socket.setSoTimeout((int) Duration.ofSeconds(60).toMillis());
    OutputStream out = socket.getOutputStream();
    out.write(
        ("POST "
                + path
                + " HTTP/1.1\r\nHost: bolo\r\n"
                + authorization
                + "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: "
                + DECLARED_BYTES
                + "\r\n\r\n-")
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
    return socket;
  }

  private static byte[] wav() {
    return TestAudio.wav(500, 5);
  }

  private static long drains(Gateway gateway) {
    return (long) gateway.app().metrics().get("bolo_refused_body_drains").gauge().value();
  }

  private static long waiting(Gateway gateway) {
    return (long) gateway.app().metrics().get("bolo_requests_waiting").gauge().value();
  }
}
