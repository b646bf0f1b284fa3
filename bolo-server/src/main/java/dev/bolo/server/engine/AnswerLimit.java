package dev.bolo.server.engine;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.Buffer;
import okio.BufferedSource;
import okio.ForwardingSource;
import okio.Okio;
import okio.Source;

/**
 * Bounds how many bytes of a provider's answer the gateway reads ({@code
 * BOLO_MAX_TRANSCRIPT_BYTES}): a provider, or whatever stands in its place, cannot make the gateway
 * buffer an answer of any size. An answer that declares a larger {@code Content-Length} fails
 * before its body is read; one without fails once the limit is passed. What all answers hold at
 * once is bounded by an {@link AnswerBudget}, charged as they arrive.
 */
public final class AnswerLimit implements Interceptor {

  /** 32 MiB: a verbose_json transcript of a 25 MB note with word timestamps fits several times. */
  public static final long DEFAULT_MAX_BYTES = 32L * 1024 * 1024;

  private final long maxBytes;
  private final AnswerBudget budget;

  private AnswerLimit(long maxBytes, AnswerBudget budget) {
    if (maxBytes < 1) {
      throw new IllegalArgumentException("maxBytes must be >= 1: " + maxBytes);
    }
    this.maxBytes = maxBytes;
    this.budget = budget;
  }

  /**
   * A client sharing {@code http}'s pool whose answers are read up to {@code maxBytes}, charged to
   * {@code budget}, and whose {@code Retry-After} headers are made safe before OkHttp itself reads
   * them.
   */
  public static OkHttpClient applyTo(OkHttpClient http, long maxBytes, AnswerBudget budget) {
    return http.newBuilder()
        // An application interceptor sees the decoded body, so a compressed answer is counted at
        // its real size.
        .addInterceptor(new AnswerLimit(maxBytes, budget))
        .addNetworkInterceptor(AnswerLimit::saneRetryAfter)
        .build();
  }

  /**
   * OkHttp's own follow-up logic parses a 503's {@code Retry-After} with {@code Integer.valueOf}
   * and throws on a larger number; the header is replaced by its capped value in delay-seconds (or
   * dropped when malformed) before OkHttp sees it. An HTTP-date is measured from when the answer
   * arrived, as OkHttp stamped it.
   */
  private static Response saneRetryAfter(Chain chain) throws IOException {
    Response response = chain.proceed(chain.request());
    String given = response.header("Retry-After");
    if (given == null) {
      return response;
    }
    Duration wait =
        ProviderRetryAfter.parse(given, Instant.ofEpochMilli(response.receivedResponseAtMillis()));
    Response.Builder sane = response.newBuilder().removeHeader("Retry-After");
    if (wait != null) {
      sane.header("Retry-After", Long.toString(wait.toSeconds()));
    }
    return sane.build();
  }

  @Override
  public Response intercept(Chain chain) throws IOException {
    AnswerBudget.Hold tagged = chain.request().tag(AnswerBudget.Hold.class);
    if (tagged != null) {
      // The exchange starts now: its deadline counts from here, on the budget's ticker.
      tagged.begin(budget);
    }
    Response response = chain.proceed(chain.request());
    ResponseBody body = response.body();
    long declared = body.contentLength();
    if (declared > maxBytes) {
      response.close();
      throw new AnswerTooLargeException(maxBytes);
    }
    AnswerBudget.Hold hold = tagged != null ? tagged : new AnswerBudget.Hold();
    if (declared > 0) {
      try {
        hold.charge(budget, declared);
      } catch (AnswerBudget.Exhausted e) {
        response.close();
        throw e;
      }
    }
    BufferedSource limited =
        Okio.buffer(
            new Limited(
                body.source(), maxBytes, Math.max(0, declared), budget, hold, tagged == null));
    return response
        .newBuilder()
        .body(ResponseBody.create(limited, body.contentType(), body.contentLength()))
        .build();
  }

  /**
   * Counts the bytes read, fails past the limit, and charges the budget for bytes beyond those
   * already charged (all of them when the answer declared no length).
   */
  private static final class Limited extends ForwardingSource {
    private final long maxBytes;
    private final AnswerBudget budget;
    private final AnswerBudget.Hold hold;
    private final boolean releaseOnClose;
    private long charged;
    private long read;

    Limited(
        Source delegate,
        long maxBytes,
        long charged,
        AnswerBudget budget,
        AnswerBudget.Hold hold,
        boolean releaseOnClose) {
      super(delegate);
      this.maxBytes = maxBytes;
      this.charged = charged;
      this.budget = budget;
      this.hold = hold;
      this.releaseOnClose = releaseOnClose;
    }

    @Override
    public long read(Buffer sink, long byteCount) throws IOException {
      long n = super.read(sink, byteCount);
      if (n > 0) {
        read += n;
        if (read > maxBytes) {
          throw new AnswerTooLargeException(maxBytes);
        }
        if (read > charged) {
          hold.charge(budget, read - charged);
          charged = read;
        }
      }
      return n;
    }

    @Override
    public void close() throws IOException {
      try {
        super.close();
      } finally {
        if (releaseOnClose) {
          hold.close();
        }
      }
    }
  }

  /** The provider's answer passed the limit; the message is the one a phone sees. */
  public static final class AnswerTooLargeException extends IOException {
    private static final long serialVersionUID = 1L;

    AnswerTooLargeException(long maxBytes) {
      super("provider answer larger than " + maxBytes + " bytes");
    }
  }
}
