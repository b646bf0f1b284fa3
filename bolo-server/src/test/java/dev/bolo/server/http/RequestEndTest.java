package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.bolo.server.testing.LogCapture;
import dev.bolo.testkit.FakeTicker;
import io.javalin.http.Context;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServletRequest;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A request's end is one list: the steps after its answer run in the order they were registered,
 * then the access line, whichever thread answers; a step that fails does not keep the others from
 * letting go; a request Jetty ended first skips its steps on the exchange and its line.
 */
class RequestEndTest {

  private final List<String> done = new ArrayList<>();
  private final RequestEnd end = new RequestEnd();

  @Test
  void aRequestAnsweredByItsHandlerRunsItsStepsInOrderThenItsAccessLine() {
    end.release(() -> done.add("upload let go"));
    end.onExchange(() -> done.add("idle timeout back"));
    end.release(() -> done.add("drain count left"));

    end.finish(() -> done.add("access line"));

    assertThat(done)
        .containsExactly("upload let go", "idle timeout back", "drain count left", "access line");
  }

  @Test
  void aLaterAnswerIsWrittenFirstThenTheStepsThenTheLineOnTheAnsweringThread() throws Exception {
    CompletableFuture<String> result = new CompletableFuture<>();
    end.handOver(result, value -> done.add("answer " + value));
    end.release(() -> done.add("upload let go"));
    end.release(() -> done.add("drain count left"));
    end.release(() -> done.add("on " + Thread.currentThread().getName()));
    end.finish(() -> done.add("access line"));
    // Nothing ends before the answer comes.
    assertThat(done).isEmpty();

    Thread answering = Thread.ofVirtual().name("answering").start(() -> result.complete("200"));
    answering.join();

    assertThat(done)
        .containsExactly(
            "answer 200", "upload let go", "drain count left", "on answering", "access line");
  }

  @Test
  void aStepThatFailsDoesNotKeepTheOthersFromLettingGo() {
    end.release(
        () -> {
          throw new IllegalStateException("the spool refused");
        });
    end.release(() -> done.add("drain count left"));

    end.finish(() -> done.add("access line"));

    assertThat(done).containsExactly("drain count left", "access line");
  }

  @Test
  void anExchangeJettyEndedFirstOnlyLetsGo() {
    CompletableFuture<String> result = new CompletableFuture<>();
    end.handOver(result, value -> done.add("answer " + value));
    end.release(() -> done.add("upload let go"));
    end.onExchange(() -> done.add("idle timeout back"));
    end.finish(() -> done.add("access line"));

    end.abandon();
    result.complete("200");

    assertThat(done).containsExactly("upload let go");
  }

  @Test
  void aHandlerThatThrewLetsGoAtOnceAndLeavesItsLineToTheExceptionHandlers() {
    end.release(() -> done.add("drain count left"));

    end.finishFailed();

    assertThat(done).containsExactly("drain count left");
  }

  @Test
  void aFailedAnswerOfAnExchangeJettyRecycledBeforeItsListenerRanIsNotHandedToJavalin() {
    AtomicBoolean recycled = new AtomicBoolean();
    AtomicReference<Supplier<? extends CompletableFuture<?>>> javalinAsks = new AtomicReference<>();
    // Jetty ended the exchange as the answer was written, and its listener has not run yet: the
    // request's end still thinks it waits, the request itself throws.
    HttpServletRequest request =
        proxy(
            HttpServletRequest.class,
            (method, args) ->
                switch (method) {
                  case "getAsyncContext" -> proxy(AsyncContext.class, (name, given) -> null);
                  case "isAsyncStarted" -> {
                    if (recycled.get()) {
                      throw new NullPointerException();
                    }
                    yield true;
                  }
                  default -> throw new UnsupportedOperationException(method);
                });
    Context ctx =
        proxy(
            Context.class,
            (method, args) ->
                switch (method) {
                  case "req" -> request;
                  case "future" -> {
                    @SuppressWarnings("unchecked")
                    Supplier<? extends CompletableFuture<?>> asked =
                        (Supplier<? extends CompletableFuture<?>>) args[0];
                    javalinAsks.set(asked);
                    yield null;
                  }
                  default -> throw new UnsupportedOperationException(method);
                });
    CompletableFuture<String> result = new CompletableFuture<>();
    end.answerWhen(
        ctx,
        result,
        value -> {
          throw new IllegalStateException("the response was recycled");
        });
    end.release(() -> done.add("upload let go"));
    end.finish(() -> done.add("access line"));
    CompletableFuture<?> forJavalin = javalinAsks.get().get();

    recycled.set(true);
    result.complete("200");

    // Javalin's exception handlers would answer into the recycled request: they are not asked.
    assertThat(forJavalin).isNotDone();
    assertThat(done).containsExactly("upload let go");
  }

  @Test
  void aFailureAfterItsRequestWasRecycledIsLoggedWithItsStackAndNeverThrowsBackIntoJavalin() {
    // Every question to a recycled request throws, as Jetty's do once its fields are cleared.
    Context recycled =
        proxy(
            Context.class,
            (method, args) -> {
              throw new NullPointerException();
            });
    try (LogCapture logs = LogCapture.start()) {
      assertThatCode(
              () ->
                  Routes.answerFailure(
                      recycled,
                      new NullPointerException(),
                      () -> {
                        throw new AssertionError("answered: " + recycled.path());
                      },
                      FakeTicker.atZero()))
          .doesNotThrowAnyException();
      assertThat(logs.text().lines().filter(line -> line.contains("Routes")))
          .singleElement()
          .asString()
          .contains("a failure could not be answered");
      // The failure's own stack is kept: a handler's bug met at a stop is still found.
      assertThat(logs.text()).contains("at dev.bolo.server.http.RequestEndTest");
    }
  }

  /** {@code type} answering each call by its method's name; Object's own methods answer alike. */
  private static <T> T proxy(Class<T> type, BiFunction<String, Object[], Object> answer) {
    return type.cast(
        Proxy.newProxyInstance(
            type.getClassLoader(),
            new Class<?>[] {type},
            (self, method, args) ->
                switch (method.getName()) {
                  case "toString" -> type.getSimpleName();
                  case "hashCode" -> System.identityHashCode(self);
                  case "equals" -> self == args[0];
                  default -> answer.apply(method.getName(), args);
                }));
  }
}
