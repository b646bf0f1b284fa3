package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.testing.ThreadDump;
import dev.bolo.testkit.Await;
import dev.bolo.testkit.FakeTicker;
import io.javalin.Javalin;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The server's stop lets a request's thread leave its route before it closes the connections: a
 * note handed to its work whose thread is still on its way out is then waiting, and Jetty's stop
 * answers it 503 as it closes its connection, instead of cutting the connection under the thread
 * that would answer. The gateway's own route cannot be held there, so a route of the same shape
 * (the outermost wrapper, a later answer, Bolo's handlers around Javalin) holds its thread until
 * the stop is waiting for it.
 */
class HandlerThreadsTest {

  private static final Duration GENEROUS = Duration.ofSeconds(30);

  private record Told(int status, String body, @Nullable String retryAfter) {}

  @Test
  void aNoteWhoseThreadIsStillLeavingItsRouteAsTheServerStopsIsToldToResend() throws Exception {
    CountDownLatch handedOver = new CountDownLatch(1);
    CountDownLatch leave = new CountDownLatch(1);
    HandlerThreads handlers = new HandlerThreads();
    FakeTicker ticker = FakeTicker.atZero();
    Javalin javalin =
        Javalin.create(
            config -> {
              config.concurrency.useVirtualThreads = true;
              config.startup.showJavalinBanner = false;
              config.jetty.host = "127.0.0.1";
              config.jetty.port = 0;
              config.jetty.modifyServer(
                  server -> {
                    RequestMetrics counted = new RequestMetrics(new SimpleMeterRegistry(), ticker);
                    server.setErrorHandler(new JsonErrorHandler(counted));
                    counted.setHandler(handlers);
                    server.setHandler(counted);
                  });
              config.routes.post(
                  "/v1/transcriptions",
                  RequestLog.around(
                      ctx -> {
                        RequestEnd.of(ctx)
                            .answerWhen(ctx, new CompletableFuture<String>(), ctx::result);
                        handedOver.countDown();
                        leave.await();
                      },
                      ticker));
            });
    javalin.start();
    OkHttpClient client = new OkHttpClient();
    Request note =
        new Request.Builder()
            .url("http://127.0.0.1:" + javalin.port() + "/v1/transcriptions")
            .post(RequestBody.create(new byte[16], MediaType.get("audio/wav")))
            .build();
    Told told;
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<Told> phone = threads.submit(() -> send(client, note));
      assertThat(handedOver.await(GENEROUS.toSeconds(), TimeUnit.SECONDS)).isTrue();

      Future<?> stopped =
          threads.submit(
              () -> {
                HandlerThreads.stop(javalin, GENEROUS);
                return null;
              });
      // The stop waits for the thread still in the route; a stop that did not would have cut the
      // phone's connection by now.
      Await.until(
          () -> phone.isDone() || stopWaits(), () -> "neither an answer nor a stop waiting");
      leave.countDown();
      told = phone.get(GENEROUS.toSeconds(), TimeUnit.SECONDS);
      stopped.get(GENEROUS.toSeconds(), TimeUnit.SECONDS);
    } finally {
      leave.countDown();
      javalin.stop();
    }
    assertThat(told.status()).as(told::body).isEqualTo(503);
    assertThat(told.body()).contains("server_unavailable", "stopping");
    assertThat(told.retryAfter()).isEqualTo("2");
  }

  private static boolean stopWaits() {
    try {
      return ThreadDump.now().threadsWith("HandlerThreads.awaitNone") == 1;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Told send(OkHttpClient client, Request request) throws IOException {
    try (Response response = client.newCall(request).execute()) {
      return new Told(response.code(), response.body().string(), response.header("Retry-After"));
    }
  }
}
