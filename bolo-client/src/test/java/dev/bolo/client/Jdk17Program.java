package dev.bolo.client;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A small app of the SDK, run by {@link Jdk17ProgramTest} in its own JVM on Java 17 with the class
 * path a Maven app resolves: against the JDK's own HTTP server, a note is answered 503 with {@code
 * Retry-After: 0} (which OkHttp must not resend by itself) and then transcribed, once blocking and
 * once asynchronously; a large note goes as a resumable upload (creation, one append, the
 * transcript). Prints one line of facts and exits 0, or exits 1.
 */
final class Jdk17Program {

  private Jdk17Program() {}

  public static void main(String[] args) throws Exception {
    AtomicInteger requests = new AtomicInteger();
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/v1/transcriptions",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          boolean first = requests.incrementAndGet() % 2 == 1;
          byte[] body =
              (first
                      ? "{\"error\":\"busy\",\"code\":\"upstream_unavailable\"}"
                      : "{\"text\":\"hello from java 17\",\"deduplicated\":false,"
                          + "\"audio_sha256\":\"x\",\"request_id\":\"r\",\"engine\":\"test\"}")
                  .getBytes(StandardCharsets.UTF_8);
          if (first) {
            exchange.getResponseHeaders().add("Retry-After", "0");
          }
          exchange.sendResponseHeaders(first ? 503 : 200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          } catch (IOException e) {
            throw new IllegalStateException(e);
          }
        });
    AtomicLong appended = new AtomicLong();
    server.createContext(
        "/v1/uploads",
        exchange -> {
          long received = exchange.getRequestBody().readAllBytes().length;
          String method = exchange.getRequestMethod();
          byte[] body = new byte[0];
          int status;
          if (method.equals("POST")) {
            exchange.getResponseHeaders().add("Location", "/v1/uploads/u-17");
            exchange.getResponseHeaders().add("Upload-Offset", "0");
            status = 201;
          } else if (method.equals("PATCH")) {
            appended.addAndGet(received);
            exchange.getResponseHeaders().add("Upload-Offset", Long.toString(appended.get()));
            status = 204;
          } else {
            body =
                "{\"text\":\"resumed on java 17\",\"deduplicated\":false,\"audio_sha256\":\"x\","
                    .concat("\"request_id\":\"r\",\"engine\":\"test\"}")
                    .getBytes(StandardCharsets.UTF_8);
            status = 200;
          }
          exchange.getResponseHeaders().add("Tus-Resumable", "1.0.0");
          exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          } catch (IOException e) {
            throw new IllegalStateException(e);
          }
        });
    server.start();
    try {
      BoloClient bolo =
          BoloClient.builder()
              .baseUrl("http://127.0.0.1:" + server.getAddress().getPort())
              .token("jdk17-token")
              // The pause is the policy's business, tested elsewhere; here it would only slow us.
              .timing(
                  Timing.builder()
                      .scheduler(
                          (pause, next) -> {
                            next.run();
                            return () -> {};
                          })
                      .build())
              .build();
      VoiceNote note = VoiceNote.ofBytes(NoteLengthTest.wav(32000, 32000, false), "note.wav");
      Outcome blocking = bolo.transcribe(note, TranscriptionOptions.defaults());
      Outcome async =
          bolo.transcribeAsync(note, TranscriptionOptions.defaults())
              .outcome()
              .get(30, TimeUnit.SECONDS);
      VoiceNote large = VoiceNote.ofBytes(NoteLengthTest.wav(320_000, 320_000, false), "large.wav");
      Outcome resumable = bolo.transcribe(large, TranscriptionOptions.defaults());
      System.out.println(
          "java="
              + System.getProperty("java.specification.version")
              + " okhttp="
              + okhttp3.OkHttp.VERSION
              + " duration="
              + note.durationMs().orElse(-1)
              + " blocking="
              + RecordingListener.describe(blocking)
              + " async="
              + RecordingListener.describe(async)
              + " requests="
              + requests.get()
              + " resumable="
              + RecordingListener.describe(resumable)
              + " appended="
              + appended.get()
              + "/"
              + large.size());
      System.exit(
          blocking.attempts() == 2
                  && async.attempts() == 2
                  && resumable instanceof Outcome.Transcribed
                  && appended.get() == large.size()
              ? 0
              : 1);
    } finally {
      server.stop(0);
    }
  }
}
