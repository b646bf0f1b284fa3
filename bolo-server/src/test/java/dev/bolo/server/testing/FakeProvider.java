package dev.bolo.server.testing;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockResponseBody;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import okio.BufferedSink;
import org.jspecify.annotations.Nullable;

/**
 * An OpenAI-compatible transcription provider on loopback: answers each call with the next scripted
 * response, or by default with {@code {"text": "transcript of <n bytes>"}}; counts calls and can
 * hold answers until released.
 */
public final class FakeProvider implements AutoCloseable {

  private final MockWebServer server = new MockWebServer();

  /** What a dead provider gives: the connection closed before any byte of an answer. */
  private static final MockResponse DROPPED =
      new MockResponse.Builder()
          .onResponseStart(new SocketEffect.CloseSocket(true, false, false))
          .build();

  /**
   * How long a held answer waits for {@link #release()}: far beyond any test's patience, so a held
   * call is still held however slow the machine makes the test, and a test that never releases
   * fails loudly ({@link #lapsedHolds()}, a 500) rather than seeing the call answered after all.
   * (It was 30 s, and answered normally then: a storm slowed past it found its notes transcribed
   * before every copy arrived, and waited for copies that had been answered.)
   */
  private static final Duration HOLD_LIMIT = Duration.ofMinutes(10);

  /** What a held call answers when the test never released it. */
  private static final MockResponse NEVER_RELEASED =
      new MockResponse.Builder()
          .code(500)
          .setHeader("Content-Type", "application/json")
          .body("{\"error\":{\"message\":\"held, and never released by the test\"}}")
          .build();

  private final AtomicInteger lapsed = new AtomicInteger();
  private volatile boolean dead;
  private final AtomicInteger calls = new AtomicInteger();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger mostInFlight = new AtomicInteger();
  private final Deque<MockResponse> script = new ArrayDeque<>();
  private volatile CountDownLatch gate = new CountDownLatch(0);
  private volatile Duration delay = Duration.ZERO;
  private volatile @Nullable Runnable eachAnswerTakes;
  private volatile @Nullable Function<RecordedRequest, MockResponse> answers;

  public FakeProvider() throws IOException {
    Dispatcher dispatcher =
        new Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
            if (dead) {
              return DROPPED;
            }
            calls.incrementAndGet();
            mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            try {
              MockResponse answer = answer(request);
              // A call in flight when the provider died never gets its answer.
              return dead ? DROPPED : answer;
            } finally {
              inFlight.decrementAndGet();
            }
          }

          private MockResponse answer(RecordedRequest request) throws InterruptedException {
            if (!gate.await(HOLD_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
              lapsed.incrementAndGet();
              return NEVER_RELEASED;
            }
            Duration wait = delay;
            if (!wait.isZero()) {
              // A provider's latency is the behaviour the test scripts, not a wait for something.
              Thread.sleep(wait.toMillis());
            }
            Runnable takes = eachAnswerTakes;
            if (takes != null) {
              takes.run();
            }
            synchronized (script) {
              if (!script.isEmpty()) {
                return script.removeFirst();
              }
            }
            Function<RecordedRequest, MockResponse> answering = answers;
            if (answering != null) {
              return answering.apply(request);
            }
            long size = request.getBodySize();
            String language = languageOf(request);
            return new MockResponse.Builder()
                .code(200)
                .setHeader("Content-Type", "application/json")
                .body("{\"text\":\"transcript of " + size + " bytes" + language + "\"}")
                .build();
          }
        };
    server.setDispatcher(dispatcher);
    server.start();
  }

  private static String languageOf(RecordedRequest request) {
    String text = bodyText(request);
    int at = text.indexOf("name=\"language\"");
    if (at < 0) {
      return "";
    }
    int start = text.indexOf("\r\n\r\n", at) + 4;
    int end = text.indexOf("\r\n", start);
    return " in " + text.substring(start, end);
  }

  /** The provider's 503 with an OpenAI-shaped error body: it is overloaded. */
  public static MockResponse overloaded() {
    return new MockResponse.Builder()
        .code(503)
        .setHeader("Content-Type", "application/json")
        .body("{\"error\":{\"message\":\"overloaded\"}}")
        .build();
  }

  /** A recorded request's body as UTF-8 text, empty when it had none. */
  public static String bodyText(RecordedRequest request) {
    okio.ByteString body = request.getBody();
    return body == null ? "" : body.utf8();
  }

  /** The base URL to configure as {@code BOLO_OPENAI_BASE_URL}. */
  public String baseUrl() {
    return server.url("/v1").toString();
  }

  /** Calls being answered now. */
  public int inFlight() {
    return inFlight.get();
  }

  /** The most calls that were answered at once so far. */
  public int mostInFlight() {
    return mostInFlight.get();
  }

  /** How many transcription calls arrived so far. */
  public int calls() {
    return calls.get();
  }

  /** Answers the next call with {@code response} instead of a transcript. */
  public FakeProvider enqueue(MockResponse response) {
    synchronized (script) {
      script.addLast(response);
    }
    return this;
  }

  /** Answers every unscripted call with what {@code answering} makes of it. */
  public FakeProvider answerWith(Function<RecordedRequest, MockResponse> answering) {
    this.answers = answering;
    return this;
  }

  /** Holds every answer until {@link #release()}. */
  public FakeProvider hold() {
    gate = new CountDownLatch(1);
    return this;
  }

  public void release() {
    gate.countDown();
  }

  /** Held calls that gave up waiting for {@link #release()} ({@link #HOLD_LIMIT}). */
  public int lapsedHolds() {
    return lapsed.get();
  }

  /**
   * Makes every answer take {@code duration} on the clock {@code advance} moves (a gateway's fake
   * ticker, say) before it is sent: the latency the gateway measures, without waiting for it.
   */
  public FakeProvider takes(Duration duration, Consumer<Duration> advance) {
    this.eachAnswerTakes = () -> advance.accept(duration);
    return this;
  }

  /** Delays every answer. */
  public FakeProvider delay(Duration delay) {
    this.delay = delay;
    return this;
  }

  /**
   * An answer as OpenAI streams a transcription: one {@code transcript.text.delta} event per delta,
   * then {@code transcript.text.done} with their concatenation (and a token usage), unless {@code
   * complete} is false: then the stream ends after the deltas, as a broken one does. The deltas
   * after the first {@code pauseAfter} are held until {@code gate} opens.
   */
  public static MockResponse eventStream(
      List<String> deltas, int pauseAfter, CountDownLatch gate, boolean complete) {
    MockResponseBody body =
        new MockResponseBody() {
          @Override
          public long getContentLength() {
            return -1;
          }

          @Override
          public void writeTo(BufferedSink sink) throws IOException {
            for (int i = 0; i < deltas.size(); i++) {
              if (i == pauseAfter) {
                await(gate);
              }
              event(
                  sink,
                  "{\"type\":\"transcript.text.delta\",\"delta\":" + quoted(deltas.get(i)) + "}");
            }
            if (complete) {
              event(
                  sink,
                  "{\"type\":\"transcript.text.done\",\"text\":"
                      + quoted(String.join("", deltas))
                      + ",\"usage\":{\"type\":\"tokens\",\"input_tokens\":14,"
                      + "\"output_tokens\":5,\"total_tokens\":19}}");
            }
          }
        };
    return new MockResponse.Builder()
        .code(200)
        .setHeader("Content-Type", "text/event-stream")
        .body(body)
        // The body has no length: its end is the end of the connection.
        .onResponseEnd(SocketEffect.ShutdownConnection.INSTANCE)
        .build();
  }

  private static void event(BufferedSink sink, String json) throws IOException {
    sink.writeUtf8("data: ").writeUtf8(json).writeUtf8("\n\n").flush();
  }

  private static String quoted(String text) {
    return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  private static void await(CountDownLatch gate) throws IOException {
    try {
      if (!gate.await(30, TimeUnit.SECONDS)) {
        throw new IOException("the test never opened the stream's gate");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  /** The next recorded request, waiting up to a few seconds. */
  public RecordedRequest takeRequest() throws InterruptedException {
    RecordedRequest request = server.takeRequest(5, TimeUnit.SECONDS);
    if (request == null) {
      throw new AssertionError("the provider received no request");
    }
    return request;
  }

  @Override
  public void close() {
    release();
    server.close();
  }

  /**
   * Dies at once: every call, and every call in flight, loses its connection before any answer;
   * calls that arrive while dead are not counted.
   */
  public void kill() {
    dead = true;
  }

  /** Answers again, after {@link #kill}. */
  public void startAgain() {
    dead = false;
  }
}
