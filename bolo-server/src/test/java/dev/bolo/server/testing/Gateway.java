package dev.bolo.server.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.App;
import dev.bolo.server.AppBuilder;
import dev.bolo.server.config.ServerConfig;
import dev.bolo.server.ledger.Ledger;
import dev.bolo.server.tls.AuthorityCertificate;
import dev.bolo.server.transcription.Jobs;
import dev.bolo.testkit.CleanText;
import dev.bolo.testkit.FakeTicker;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import javax.net.SocketFactory;
import okhttp3.ConnectionPool;
import okhttp3.MediaType;
import okhttp3.MultipartBody;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.tls.Certificates;
import okhttp3.tls.HandshakeCertificates;
import org.jspecify.annotations.Nullable;

/**
 * A real gateway on a loopback port for tests, with a fake ticker for leases and TTL, and small
 * helpers to upload notes the way a phone does.
 */
public final class Gateway implements AutoCloseable {

  public static final String TOKEN_A = "alpha-MtbjCOqFrCn3id3BI3CAWtj3";
  public static final String TOKEN_B = "bravo-nsArKYqRMmUBoO48--JAOF8j";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final App app;
  private final FakeTicker ticker = FakeTicker.atOneSecond();
  private final OkHttpClient client =
      new OkHttpClient.Builder()
          .readTimeout(Duration.ofSeconds(60))
          .retryOnConnectionFailure(false)
          .build();

  private Gateway(Map<String, String> env, boolean realTime) {
    this(env, realTime, Clock.systemUTC());
  }

  private Gateway(Map<String, String> env, boolean realTime, Clock clock) {
    this(env, realTime, clock, UnaryOperator.identity());
  }

  private Gateway(
      Map<String, String> env, boolean realTime, Clock clock, UnaryOperator<Ledger> ledgerView) {
    this(App.builder(ServerConfig.fromMap(env)).clock(clock).ledgerView(ledgerView), realTime);
  }

  private Gateway(AppBuilder builder, boolean realTime) {
    this.app = builder.ticker(realTime ? System::nanoTime : ticker).build().start();
  }

  /**
   * A gateway configured by exactly these variables whose wall clock is {@code clock} and whose
   * jobs' webhooks go through {@code webhooks} (a test's policy, sender and secrets).
   */
  public static Gateway withWebhooks(Map<String, String> env, Clock clock, Jobs.Webhooks webhooks) {
    return new Gateway(
        App.builder(ServerConfig.fromMap(env)).clock(clock).webhooks(webhooks), false);
  }

  /**
   * A gateway configured by exactly these variables whose requests reach the ledger through {@code
   * view} (a test's wrapper that counts or fails calls).
   */
  public static Gateway withLedgerView(Map<String, String> env, UnaryOperator<Ledger> view) {
    return new Gateway(env, false, Clock.systemUTC(), view);
  }

  /** A gateway configured by exactly these variables whose wall clock is {@code clock}. */
  public static Gateway withClock(Map<String, String> env, Clock clock) {
    return new Gateway(env, false, clock);
  }

  /** A gateway whose engine is the OpenAI-compatible one pointed at {@code provider}. */
  public static Gateway openAi(FakeProvider provider, Path dataDir, Map<String, String> extra) {
    Map<String, String> env = new HashMap<>(openAiEnvironment(provider, dataDir));
    env.putAll(extra);
    return withEnvironment(env);
  }

  /**
   * The variables of {@link #openAi}: port 0, the OpenAI-compatible engine on {@code provider},
   * embedded state under {@code dataDir}, and the devices alpha ({@link #TOKEN_A}) and bravo
   * ({@link #TOKEN_B}).
   */
  public static Map<String, String> openAiEnvironment(FakeProvider provider, Path dataDir) {
    return Map.of(
        "BOLO_PORT",
        "0",
        "BOLO_ENGINE",
        "openai",
        "BOLO_OPENAI_BASE_URL",
        provider.baseUrl(),
        "BOLO_OPENAI_API_KEY",
        "sk-test",
        "BOLO_DATA_DIR",
        dataDir.toString(),
        "BOLO_DEVICE_TOKENS",
        "alpha=" + TOKEN_A + ",bravo=" + TOKEN_B);
  }

  /** A gateway configured by exactly these variables, as if they were its environment. */
  public static Gateway withEnvironment(Map<String, String> env) {
    return new Gateway(env, false);
  }

  /**
   * A gateway configured by exactly these variables whose monotonic clock is the real one, for
   * tests where leases must lapse by themselves (outages); {@link #advance} does nothing to it.
   */
  public static Gateway withRealTime(Map<String, String> env) {
    return new Gateway(env, true);
  }

  public String url(String path) {
    return "http://127.0.0.1:" + app.port() + path;
  }

  /** The URL of {@code path} over HTTPS ({@code BOLO_TLS=on}) at {@code host}. */
  public String secureUrl(String host, String path) {
    return "https://" + host + ":" + app.port() + path;
  }

  /**
   * A client that trusts the gateway's own certificate authority alone ({@code BOLO_TLS=on}), as a
   * phone does once it has installed the authority.
   */
  public OkHttpClient secureClient() {
    AuthorityCertificate authority = app.phones().authority();
    if (authority == null) {
      throw new IllegalStateException("the gateway has no certificate authority of its own");
    }
    return clientTrusting(authority.pem());
  }

  /** A client that trusts the certificate authority {@code pem} alone. */
  public static OkHttpClient clientTrusting(String pem) {
    HandshakeCertificates trust =
        new HandshakeCertificates.Builder()
            .addTrustedCertificate(Certificates.decodeCertificatePem(pem))
            .build();
    return new OkHttpClient.Builder()
        .sslSocketFactory(trust.sslSocketFactory(), trust.trustManager())
        .followRedirects(false)
        .readTimeout(Duration.ofSeconds(60))
        .retryOnConnectionFailure(false)
        .build();
  }

  public App app() {
    return app;
  }

  /** Moves the gateway's monotonic clock forward. */
  public void advance(Duration duration) {
    ticker.advance(duration);
  }

  public OkHttpClient client() {
    return client;
  }

  /**
   * A client whose connections come from {@code localAddress} (any of 127.0.0.0/8 on loopback), for
   * a test that needs a second client address.
   */
  public OkHttpClient clientFrom(String localAddress) {
    InetSocketAddress from = new InetSocketAddress(localAddress, 0);
    return client
        .newBuilder()
        // A pool of its own: OkHttp would reuse another client's connection to the same gateway.
        .connectionPool(new ConnectionPool())
        .socketFactory(
            new SocketFactory() {
              @Override
              public Socket createSocket() throws IOException {
                Socket socket = new Socket();
                socket.bind(from);
                return socket;
              }

              @Override
              public Socket createSocket(String host, int port) {
                throw new UnsupportedOperationException("OkHttp connects unconnected sockets");
              }

              @Override
              public Socket createSocket(
                  String host, int port, InetAddress localHost, int localPort) {
                throw new UnsupportedOperationException("OkHttp connects unconnected sockets");
              }

              @Override
              public Socket createSocket(InetAddress host, int port) {
                throw new UnsupportedOperationException("OkHttp connects unconnected sockets");
              }

              @Override
              public Socket createSocket(
                  InetAddress address, int port, InetAddress localAddress, int localPort) {
                throw new UnsupportedOperationException("OkHttp connects unconnected sockets");
              }
            })
        .build();
  }

  /** A native upload with the given token, audio and optional text fields (name, value pairs). */
  public Request nativeUpload(@Nullable String token, byte[] audio, String... fields) {
    return nativeUploadRequest(url("/v1/transcriptions"), token, audio, fields);
  }

  /** A native upload to {@code url}, as a phone sends it. */
  public static Request nativeUploadRequest(
      String url, @Nullable String token, byte[] audio, String... fields) {
    Request.Builder request = new Request.Builder().url(url).post(form("audio", audio, fields));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return request.build();
  }

  /** An upload to an OpenAI-compatible endpoint at {@code url}, as an OpenAI SDK sends it. */
  public static Request openAiUploadRequest(
      String url, String token, byte[] audio, String... fields) {
    return new Request.Builder()
        .url(url)
        .header("Authorization", "Bearer " + token)
        .post(form("file", audio, fields))
        .build();
  }

  /** A form with the note as its part {@code part} and the settings {@code fields} as pairs. */
  private static MultipartBody form(String part, byte[] audio, String... fields) {
    MultipartBody.Builder form =
        new MultipartBody.Builder()
            .setType(MultipartBody.FORM)
            .addFormDataPart(
                part, "note.wav", RequestBody.create(audio, MediaType.get("audio/wav")));
    for (int i = 0; i + 1 < fields.length; i += 2) {
      form.addFormDataPart(fields[i], fields[i + 1]);
    }
    return form.build();
  }

  /** Sends a request and returns status and body. */
  public Reply send(Request request) throws IOException {
    try (Response response = client.newCall(request).execute()) {
      return replyOf(response);
    }
  }

  /**
   * What {@code response} says: status, body and the headers a test reads. An error answer in
   * either JSON shape must carry a clean message ({@link CleanText}): every test that reads a reply
   * through here checks it, whatever else it is about.
   */
  public static Reply replyOf(Response response) throws IOException {
    Reply reply =
        new Reply(
            response.code(),
            response.body().string(),
            response.header("Idempotent-Replayed"),
            response.header("Retry-After"),
            response.header("X-Bolo-Request-Id"),
            response.header("X-Bolo-Model"),
            response.header("Content-Type"));
    checkErrorMessage(reply);
    return reply;
  }

  /**
   * Fails unless the message of an error answer, native ({@code "error": "…"}) or OpenAI's ({@code
   * "error": {"message": "…", "param": …}}), is one line of printable text of bounded length.
   */
  public static void checkErrorMessage(Reply reply) throws IOException {
    String type = reply.contentType();
    if (reply.status() < 400 || type == null || !type.startsWith("application/json")) {
      return;
    }
    JsonNode error = JSON.readTree(reply.body()).path("error");
    if (error.isTextual()) {
      CleanText.check(error.asText());
    } else if (error.isObject()) {
      CleanText.check(error.path("message").asText());
      if (error.path("param").isTextual()) {
        CleanText.check(error.path("param").asText());
      }
    }
  }

  /**
   * What came back.
   *
   * @param model the {@code X-Bolo-Model} header: the model that made a transcript
   * @param contentType the {@code Content-Type} header
   */
  public record Reply(
      int status,
      String body,
      @Nullable String replayed,
      @Nullable String retryAfter,
      @Nullable String requestId,
      @Nullable String model,
      @Nullable String contentType) {}

  @Override
  public void close() {
    app.close();
    client.dispatcher().executorService().shutdown();
    client.connectionPool().evictAll();
  }
}
