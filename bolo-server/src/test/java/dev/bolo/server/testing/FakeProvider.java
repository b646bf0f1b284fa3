package dev.bolo.server.testing;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;

/**
 * An OpenAI-compatible transcription provider on loopback: answers each call with the next scripted
 * response, or by default with {@code {"text": "transcript of <n bytes>"}}; counts calls and can
 * hold answers until released.
 */
public final class FakeProvider implements AutoCloseable {

  private final MockWebServer server = new MockWebServer();
  private final AtomicInteger calls = new AtomicInteger();
  private final Deque<MockResponse> script = new ArrayDeque<>();
  private volatile CountDownLatch gate = new CountDownLatch(0);
  private volatile Duration delay = Duration.ZERO;

  public FakeProvider() throws IOException {
    server.setDispatcher(
        new Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
            calls.incrementAndGet();
            gate.await(30, TimeUnit.SECONDS);
            Duration wait = delay;
            if (!wait.isZero()) {
              Thread.sleep(wait.toMillis());
            }
            synchronized (script) {
              if (!script.isEmpty()) {
                return script.removeFirst();
              }
            }
            long size = request.getBodySize();
            String language = languageOf(request);
            return new MockResponse.Builder()
                .code(200)
                .setHeader("Content-Type", "application/json")
                .body("{\"text\":\"transcript of " + size + " bytes" + language + "\"}")
                .build();
          }
        });
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

  /** A recorded request's body as UTF-8 text, empty when it had none. */
  public static String bodyText(RecordedRequest request) {
    okio.ByteString body = request.getBody();
    return body == null ? "" : body.utf8();
  }

  /** The base URL to configure as {@code BOLO_OPENAI_BASE_URL}. */
  public String baseUrl() {
    return server.url("/v1").toString();
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

  /** Holds every answer until {@link #release()}. */
  public FakeProvider hold() {
    gate = new CountDownLatch(1);
    return this;
  }

  public void release() {
    gate.countDown();
  }

  /** Delays every answer. */
  public FakeProvider delay(Duration delay) {
    this.delay = delay;
    return this;
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
}
