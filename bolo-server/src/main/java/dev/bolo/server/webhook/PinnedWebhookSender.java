package dev.bolo.server.webhook;

import dev.bolo.server.webhook.ResolvingUrlPolicy.Target;
import dev.bolo.server.webhook.WebhookUrlPolicy.RefusedWebhookUrl;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.Proxy;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import okhttp3.ConnectionPool;
import okhttp3.Dns;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * {@link WebhookSender} on OkHttp, connecting to the addresses {@link ResolvingUrlPolicy} resolved
 * and checked for this attempt and to no other: the call's {@link Dns} answers the host with
 * exactly those, so the name is looked up once and a second answer (DNS rebinding) is never asked
 * for, while TLS still sends the name (SNI) and checks the certificate against it, and {@code Host}
 * is the URL's. Redirects are not followed; no proxy is used (a proxy would resolve the name
 * itself); a whole attempt, the receiver's answer included, ends within the timeout; at most {@link
 * #MAX_ANSWER_BYTES} of the receiver's body are read, and never logged or kept. The message's trace
 * headers ({@code traceparent}) go with it, so the receiver can go on with the trace. Thread safe.
 */
final class PinnedWebhookSender implements WebhookSender {

  /** What of a receiver's answer is read before the connection is closed: its status matters. */
  static final int MAX_ANSWER_BYTES = 1024;

  private static final MediaType JSON = MediaType.get("application/json");

  /**
   * Names the sender to the receiver; the major version of the event format ({@code v1} signatures,
   * PROTOCOL v4's body) follows the slash.
   */
  static final String USER_AGENT = "Bolo-Webhooks/1";

  private final ResolvingUrlPolicy policy;
  private final OkHttpClient client;

  /**
   * @param timeout the most one attempt takes, from the lookup to the answer's end
   */
  PinnedWebhookSender(ResolvingUrlPolicy policy, Duration timeout) {
    this(policy, new OkHttpClient.Builder(), timeout);
  }

  /** As above, on {@code builder}'s settings (a test's trusted certificates). */
  PinnedWebhookSender(ResolvingUrlPolicy policy, OkHttpClient.Builder builder, Duration timeout) {
    this.policy = policy;
    this.client =
        builder
            .followRedirects(false)
            .followSslRedirects(false)
            .proxy(Proxy.NO_PROXY)
            // Each attempt's addresses are its own: a pooled connection could not be reused by the
            // next attempt anyway, and would hold a socket open to the receiver for nothing.
            .connectionPool(new ConnectionPool(0, 1, TimeUnit.SECONDS))
            .retryOnConnectionFailure(false)
            .callTimeout(timeout)
            .connectTimeout(timeout)
            .readTimeout(timeout)
            .writeTimeout(timeout)
            .build();
  }

  @Override
  public Delivery send(String url, Message message) {
    Target target;
    try {
      target = policy.target(url);
    } catch (RefusedWebhookUrl e) {
      return new Delivery(Outcome.BLOCKED, 0, String.valueOf(e.getMessage()));
    } catch (UnknownHostException e) {
      return new Delivery(
          Outcome.UNREACHABLE, 0, "the receiver's host does not resolve to any address now");
    }
    Request.Builder request =
        new Request.Builder()
            .url(target.url())
            .header("webhook-id", message.id())
            .header("webhook-timestamp", Long.toString(message.timestamp().getEpochSecond()))
            .header(
                "webhook-signature",
                WebhookSignature.header(
                    message.id(), message.timestamp(), message.body(), message.secrets()))
            .header("User-Agent", USER_AGENT)
            .post(RequestBody.create(message.body(), JSON));
    message.traceHeaders().forEach(request::header);
    OkHttpClient pinned = client.newBuilder().dns(new PinnedDns(target.addresses())).build();
    try (Response response = pinned.newCall(request.build()).execute()) {
      int status = response.code();
      discardSome(response.body());
      if (response.isSuccessful()) {
        return new Delivery(Outcome.DELIVERED, status, "the receiver answered " + status);
      }
      String detail =
          response.isRedirect()
              ? "the receiver answered " + status + " (redirects are not followed)"
              : "the receiver answered " + status;
      return new Delivery(Outcome.REJECTED, status, detail);
    } catch (InterruptedIOException e) {
      return new Delivery(Outcome.UNREACHABLE, 0, "the receiver did not answer in time");
    } catch (SSLException e) {
      return new Delivery(
          Outcome.UNREACHABLE,
          0,
          "no TLS connection to the receiver: its certificate or TLS version was not accepted");
    } catch (IOException e) {
      return new Delivery(Outcome.UNREACHABLE, 0, "the receiver could not be reached");
    }
  }

  /**
   * Reads at most {@link #MAX_ANSWER_BYTES} of an answer nobody uses; whatever happens there, the
   * status has been answered.
   */
  private static void discardSome(ResponseBody body) {
    try {
      body.source().request(MAX_ANSWER_BYTES);
    } catch (IOException e) {
      // A cut or slow answer body does not undo the status the receiver gave.
    }
  }

  /** Answers every lookup of one attempt with the addresses checked for it. */
  private record PinnedDns(List<InetAddress> addresses) implements Dns {
    @Override
    public List<InetAddress> lookup(String hostname) {
      return addresses;
    }
  }
}
