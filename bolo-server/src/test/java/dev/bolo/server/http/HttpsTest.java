package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.App;
import dev.bolo.server.config.ServerConfig;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.server.testing.TestCertificates;
import dev.bolo.server.tls.LanAddresses;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSocket;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code BOLO_TLS=on}: the gateway's port speaks HTTPS with a certificate of its own authority (or
 * the operator's), and plain HTTP only to this machine; from elsewhere plain HTTP is sent to HTTPS.
 */
class HttpsTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ADMIN_TOKEN = "admin-token-0123456789abcdef";

  @RegisterExtension
  final OpenAiGateway fixture = OpenAiGateway.onDemand(Map.of("BOLO_ADMIN_TOKEN", ADMIN_TOKEN));

  @Test
  void aClientTrustingTheGatewaysAuthorityIsServedOverHttpsAndThisMachineStillOverHttp()
      throws Exception {
    Gateway gateway = fixture.start(Map.of("BOLO_TLS", "on"));
    OkHttpClient phone = gateway.secureClient();

    for (String host : List.of("localhost", "127.0.0.1")) {
      try (Response health = call(phone, gateway.secureUrl(host, "/healthz"))) {
        assertThat(health.code()).as(host).isEqualTo(200);
        assertThat(health.handshake()).as(host).isNotNull();
      }
    }
    byte[] note = TestAudio.wav(1_500, 31);
    try (Response answer =
        phone
            .newCall(
                Gateway.nativeUploadRequest(
                    gateway.secureUrl("localhost", "/v1/transcriptions"), Gateway.TOKEN_A, note))
            .execute()) {
      assertThat(answer.code()).isEqualTo(200);
      assertThat(JSON.readTree(answer.body().string()).path("text").asText()).isNotBlank();
    }
    // Local tools, health probes and a proxy on this machine keep plain HTTP.
    assertThat(gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, note)).replayed())
        .isEqualTo("true");
    // A client that does not trust the authority is refused in the handshake.
    assertThatThrownBy(() -> call(gateway.client(), gateway.secureUrl("localhost", "/healthz")))
        .isInstanceOf(SSLHandshakeException.class);
  }

  @Test
  void theAuthoritysCertificateIsServedForPhonesAndItsKeysStayPrivate() throws Exception {
    Gateway gateway = fixture.start(Map.of("BOLO_TLS", "on"));
    Path tls = fixture.dataDir().resolve("tls");

    try (Response certificate = call(gateway.secureClient(), gateway.url("/ca.crt"))) {
      assertThat(certificate.code()).isEqualTo(200);
      assertThat(certificate.header("Content-Type")).isEqualTo("application/x-x509-ca-cert");
      byte[] der = certificate.body().bytes();
      X509Certificate served = certificate(der);
      try (InputStream kept = Files.newInputStream(tls.resolve("ca.crt"))) {
        assertThat(served)
            .isEqualTo(CertificateFactory.getInstance("X.509").generateCertificate(kept));
      }
      assertThat(new String(der, StandardCharsets.ISO_8859_1)).doesNotContain("PRIVATE");
    }
    assertThat(Files.getPosixFilePermissions(tls.resolve("ca.key")).toString())
        .isEqualTo("[OWNER_READ, OWNER_WRITE]");
  }

  @Test
  void plainHttpFromAnotherAddressIsSentToTheSameUrlOverHttpsAndServesNothing() throws Exception {
    List<InetAddress> lan = LanAddresses.current();
    // Not skipped: the machines this suite runs on have an address besides loopback (here
    // 192.0.2.2 and fd00::2); without one this test cannot come from elsewhere, and says so.
    assertThat(lan)
        .as(
            "this machine has no address but loopback to come from; give it one (a LAN or dummy interface)")
        .isNotEmpty();
    Gateway gateway = fixture.start(Map.of("BOLO_TLS", "on", "BOLO_HOST", "0.0.0.0"));
    String host = LanAddresses.urlHost(lan.getFirst());
    String plain = "http://" + host + ":" + gateway.app().port();
    OkHttpClient noRedirects = gateway.client().newBuilder().followRedirects(false).build();

    try (Response page = call(noRedirects, plain + "/admin?tab=devices")) {
      assertThat(page.code()).isEqualTo(308);
      assertThat(page.header("Location"))
          .isEqualTo("https://" + host + ":" + gateway.app().port() + "/admin?tab=devices");
    }
    try (Response upload =
        noRedirects
            .newCall(
                Gateway.nativeUploadRequest(
                    plain + "/v1/transcriptions", Gateway.TOKEN_A, TestAudio.wav(800, 5)))
            .execute()) {
      assertThat(upload.code()).isEqualTo(308);
    }
    assertThat(fixture.provider().calls()).isZero();
    // The address it came in on is one a phone may open, and the certificate covers it.
    try (Response connect =
        gateway
            .secureClient()
            .newCall(
                new Request.Builder()
                    .url(gateway.secureUrl(host, "/admin/api/connect"))
                    .header("Authorization", "Bearer " + ADMIN_TOKEN)
                    .build())
            .execute()) {
      JsonNode body = JSON.readTree(connect.body().string());
      assertThat(body.path("secure").asBoolean()).isTrue();
      assertThat(body.path("page_urls").toString())
          .contains("https://" + host + ":" + gateway.app().port() + "/");
      assertThat(body.path("authority").path("path").asText()).isEqualTo("/ca.crt");
      assertThat(body.path("authority").path("sha256").asText())
          .isEqualTo(
              Objects.requireNonNull(gateway.app().phones().authority()).sha256Fingerprint());
    }
  }

  @Test
  void anOperatorsCertificateIsServedAndAKeyThatIsNotItsStopsTheStartWithTheVariablesName()
      throws Exception {
    Path dir = fixture.dataDir().resolve("certificates");
    TestCertificates.Issued own =
        TestCertificates.issue(dir.resolve("own"), List.of("localhost"), List.of("127.0.0.1"));
    TestCertificates.Issued other =
        TestCertificates.issue(dir.resolve("other"), List.of("localhost"), List.of());
    Map<String, String> files =
        Map.of(
            "BOLO_TLS",
            "on",
            "BOLO_TLS_CERT",
            own.certificate().toString(),
            "BOLO_TLS_KEY",
            own.key().toString());

    Gateway gateway = fixture.start(files);

    OkHttpClient trusting = Gateway.clientTrusting(Files.readString(own.caCertificate()));
    try (Response health = call(trusting, gateway.secureUrl("localhost", "/healthz"))) {
      assertThat(health.code()).isEqualTo(200);
    }
    try (Response none = call(trusting, gateway.secureUrl("localhost", "/ca.crt"))) {
      assertThat(none.code()).as("no authority of the gateway's own to serve").isEqualTo(404);
    }
    Map<String, String> mismatched =
        new HashMap<>(
            Gateway.openAiEnvironment(fixture.provider(), fixture.dataDir().resolve("second")));
    mismatched.putAll(files);
    mismatched.put("BOLO_TLS_KEY", other.key().toString());
    ServerConfig config = ServerConfig.fromMap(mismatched);
    assertThatThrownBy(() -> App.builder(config).build())
        .isInstanceOf(ServerConfig.ConfigException.class)
        .hasMessageStartingWith("BOLO_TLS_CERT, BOLO_TLS_KEY: the private key is not the key of");
  }

  @Test
  void headersThatDoNotArriveInTimeOverTlsAreAnswered408AndTheConnectionClosed() throws Exception {
    Gateway gateway = fixture.start(Map.of("BOLO_TLS", "on", "BOLO_HEADER_TIMEOUT", "1s"));
    OkHttpClient phone = gateway.secureClient();

    try (SSLSocket socket = (SSLSocket) phone.sslSocketFactory().createSocket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", gateway.app().port()), 5_000);
      socket.setSoTimeout(10_000);
      socket.startHandshake();
      socket
          .getOutputStream()
          .write(
              "GET /healthz HTTP/1.1\r\nHost: localhost\r\n".getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();

      String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);

      assertThat(answer).startsWith("HTTP/1.1 408").contains("request_timeout");
    }
  }

  private static Response call(OkHttpClient client, String url) throws Exception {
    return client.newCall(new Request.Builder().url(url).build()).execute();
  }

  private static X509Certificate certificate(byte[] der) throws Exception {
    return (X509Certificate)
        CertificateFactory.getInstance("X.509")
            .generateCertificate(new java.io.ByteArrayInputStream(der));
  }
}
