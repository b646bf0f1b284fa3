package dev.bolo.server.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.webhook.WebhookSender.Delivery;
import dev.bolo.server.webhook.WebhookSender.Message;
import dev.bolo.server.webhook.WebhookSender.Outcome;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.OkHttpClient;
import okhttp3.tls.HandshakeCertificates;
import okhttp3.tls.HeldCertificate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The sender end to end, on loopback only: names resolve through the test's own table (to
 * 127.0.0.x, or to a public-looking address that is then never connected to), and a socket
 * listening where a refused call would go proves that no connection was made.
 */
class PinnedWebhookSenderTest {

  private static final String SECRET = WebhookSignatureTest.SECRET;
  private static final Instant NOW = Instant.parse("2026-12-06T16:00:00Z");
  private static final byte[] BODY =
      "{\"type\":\"job.succeeded\",\"timestamp\":\"2026-12-06T16:00:00Z\",\"data\":{}}"
          .getBytes(StandardCharsets.UTF_8);
  private static final Message MESSAGE = new Message("msg_1", NOW, BODY, List.of(SECRET));

  /**
   * The attempt timeout of receivers that answer: long enough for a TLS handshake on a loaded
   * two-core machine; a passing attempt returns as soon as it is answered.
   */
  private static final Duration ANSWERS_WITHIN = Duration.ofSeconds(30);

  /** The attempt timeout of the receiver that never answers: the test waits this long. */
  private static final Duration SILENCE = Duration.ofMillis(500);

  private final MockWebServer receiver = new MockWebServer();
  private ServerSocketChannel trap;

  @BeforeEach
  void start() throws IOException {
    receiver.start(InetAddress.getByName("127.0.0.1"), 0);
    // Where a refused call would connect: the receiver's port on another loopback address.
    trap = ServerSocketChannel.open();
    trap.bind(new InetSocketAddress("127.0.0.2", receiver.getPort()));
    trap.configureBlocking(false);
  }

  @AfterEach
  void stop() throws IOException {
    trap.close();
    receiver.close();
  }

  /** A resolver answering {@code host} with {@code answers} in turn, counting its lookups. */
  private static final class Answers implements HostResolver {
    final AtomicInteger lookups = new AtomicInteger();
    private final String host;
    private final Deque<String> answers;

    Answers(String host, String... answers) {
      this.host = host;
      this.answers = new ArrayDeque<>(List.of(answers));
    }

    @Override
    public synchronized List<InetAddress> resolve(String name) throws UnknownHostException {
      lookups.incrementAndGet();
      if (!name.equals(host) || answers.isEmpty()) {
        throw new UnknownHostException(name);
      }
      String answer = answers.size() > 1 ? answers.poll() : answers.peek();
      return List.of(InetAddress.getByName(answer));
    }
  }

  private WebhookSender sender(List<String> httpHosts, HostResolver resolver) {
    return WebhookCalls.sender(httpHosts, resolver, ANSWERS_WITHIN);
  }

  private String hostPort(String host) {
    return host + ":" + receiver.getPort();
  }

  /** Whether anything connected to the trap: a completed handshake waits in its backlog. */
  private boolean trapWasConnected() throws IOException {
    try (var connection = trap.accept()) {
      return connection != null;
    }
  }

  @Test
  void aReceiverAnswering2xxGetsTheSignedEventWithStandardWebhooksHeaders() throws Exception {
    receiver.enqueue(new MockResponse.Builder().code(204).build());
    Answers resolver = new Answers("receiver.test", "127.0.0.1");

    Delivery delivery =
        sender(List.of(hostPort("receiver.test")), resolver)
            .send("http://" + hostPort("receiver.test") + "/hooks/bolo", MESSAGE);

    assertThat(delivery.outcome()).isEqualTo(Outcome.DELIVERED);
    assertThat(delivery.status()).isEqualTo(204);
    RecordedRequest received = Objects.requireNonNull(receiver.takeRequest(5, TimeUnit.SECONDS));
    assertThat(received.getHeaders().get("webhook-id")).isEqualTo("msg_1");
    assertThat(received.getHeaders().get("webhook-timestamp"))
        .isEqualTo(Long.toString(NOW.getEpochSecond()));
    assertThat(received.getHeaders().get("webhook-signature"))
        .isEqualTo(WebhookSignature.header("msg_1", NOW, BODY, List.of(SECRET)));
    assertThat(received.getHeaders().get("content-type")).startsWith("application/json");
    assertThat(received.getHeaders().get("user-agent")).startsWith("Bolo-Webhooks/");
    assertThat(received.getHeaders().get("host")).isEqualTo(hostPort("receiver.test"));
    assertThat(Objects.requireNonNull(received.getBody()).toByteArray()).isEqualTo(BODY);
  }

  @Test
  void aReceiverAnswering500IsRejectedForALaterAttempt() {
    receiver.enqueue(new MockResponse.Builder().code(500).body("secret stack trace").build());

    Delivery delivery =
        sender(List.of(hostPort("receiver.test")), new Answers("receiver.test", "127.0.0.1"))
            .send("http://" + hostPort("receiver.test") + "/", MESSAGE);

    assertThat(delivery.outcome()).isEqualTo(Outcome.REJECTED);
    assertThat(delivery.status()).isEqualTo(500);
    assertThat(delivery.detail()).doesNotContain("stack trace");
  }

  @Test
  void aRedirectToLoopbackIsNotFollowed() throws IOException {
    receiver.enqueue(
        new MockResponse.Builder()
            .code(302)
            .setHeader("Location", "http://127.0.0.2:" + receiver.getPort() + "/")
            .build());

    Delivery delivery =
        sender(List.of(hostPort("receiver.test")), new Answers("receiver.test", "127.0.0.1"))
            .send("http://" + hostPort("receiver.test") + "/", MESSAGE);

    assertThat(delivery.outcome()).isEqualTo(Outcome.REJECTED);
    assertThat(delivery.status()).isEqualTo(302);
    assertThat(delivery.detail()).contains("redirects are not followed");
    assertThat(trapWasConnected()).isFalse();
  }

  @Test
  void aNameThatResolvesToLoopbackIsBlockedWithoutAConnection() throws IOException {
    Delivery delivery =
        sender(List.of(), new Answers("internal.test", "127.0.0.2"))
            .send("https://" + hostPort("internal.test") + "/", MESSAGE);

    assertThat(delivery.outcome()).isEqualTo(Outcome.BLOCKED);
    assertThat(delivery.detail()).contains("127.0.0.2").contains("loopback");
    assertThat(trapWasConnected()).isFalse();
  }

  @Test
  void aNameThatPassedWithAPublicAddressAndNowResolvesToLoopbackIsBlocked() throws Exception {
    Answers rebinding = new Answers("rebind.test", "93.184.215.14", "127.0.0.2");
    String url = "https://" + hostPort("rebind.test") + "/";
    WebhookCalls.policy(List.of(), rebinding).check(url);

    Delivery delivery = sender(List.of(), rebinding).send(url, MESSAGE);

    assertThat(delivery.outcome()).isEqualTo(Outcome.BLOCKED);
    assertThat(trapWasConnected()).isFalse();
  }

  @Test
  void theNameIsLookedUpOnceAndOnlyTheAddressCheckedIsConnected() throws IOException {
    receiver.enqueue(new MockResponse.Builder().code(200).build());
    // A second lookup would answer the trap's address.
    Answers answers = new Answers("pinned.test", "127.0.0.1", "127.0.0.2");

    Delivery delivery =
        sender(List.of(hostPort("pinned.test")), answers)
            .send("http://" + hostPort("pinned.test") + "/", MESSAGE);

    assertThat(delivery.outcome()).isEqualTo(Outcome.DELIVERED);
    assertThat(answers.lookups).hasValue(1);
    assertThat(trapWasConnected()).isFalse();
  }

  @Test
  void overTlsTheCertificateIsCheckedAgainstTheNameWhileThePinnedAddressIsConnected()
      throws Exception {
    HeldCertificate certificate =
        new HeldCertificate.Builder().addSubjectAlternativeName("receiver.test").build();
    HandshakeCertificates server =
        new HandshakeCertificates.Builder().heldCertificate(certificate).build();
    HandshakeCertificates client =
        new HandshakeCertificates.Builder()
            .addTrustedCertificate(certificate.certificate())
            .build();
    try (MockWebServer tls = new MockWebServer()) {
      tls.useHttps(server.sslSocketFactory());
      tls.enqueue(new MockResponse.Builder().code(200).build());
      tls.enqueue(new MockResponse.Builder().code(200).build());
      tls.start(InetAddress.getByName("127.0.0.1"), 0);
      String hostPort = "receiver.test:" + tls.getPort();
      String otherName = "other.test:" + tls.getPort();
      OkHttpClient.Builder trusting =
          new OkHttpClient.Builder()
              .sslSocketFactory(client.sslSocketFactory(), client.trustManager());
      HostResolver both = host -> List.of(InetAddress.getByName("127.0.0.1"));
      WebhookSender sender =
          new PinnedWebhookSender(
              new ResolvingUrlPolicy(List.of(hostPort, otherName), both), trusting, ANSWERS_WITHIN);

      Delivery rightName = sender.send("https://" + hostPort + "/", MESSAGE);
      assertThat(rightName.outcome()).as(rightName.detail()).isEqualTo(Outcome.DELIVERED);
      Delivery wrongName = sender.send("https://" + otherName + "/", MESSAGE);
      assertThat(wrongName.outcome()).isEqualTo(Outcome.UNREACHABLE);
      assertThat(wrongName.detail()).contains("TLS");
    }
  }

  @Test
  void aReceiverThatNeverAnswersIsUnreachableOnceTheTimeoutPasses() throws IOException {
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
      String hostPort = "silent.test:" + silent.getLocalPort();

      Delivery delivery =
          WebhookCalls.sender(List.of(hostPort), new Answers("silent.test", "127.0.0.1"), SILENCE)
              .send("http://" + hostPort + "/", MESSAGE);

      assertThat(delivery.outcome()).isEqualTo(Outcome.UNREACHABLE);
      assertThat(delivery.status()).isZero();
    }
  }

  @Test
  void aNameThatDoesNotResolveNowIsUnreachableNotBlocked() {
    Delivery delivery =
        sender(List.of(), new Answers("gone.test")).send("https://gone.test/", MESSAGE);

    assertThat(delivery.outcome()).isEqualTo(Outcome.UNREACHABLE);
  }
}
