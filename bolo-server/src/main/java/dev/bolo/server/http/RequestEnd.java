package dev.bolo.server.http;

import io.javalin.http.Context;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A device route's request from its handler to its end, owned by the outermost wrapper ({@link
 * RequestLog}), which begins it before anything else runs and finishes it once the handler
 * returned. Everything a request does after its answer is one list of steps, registered here by the
 * parts that hold something ({@link #release}: the upload, the drain's count; {@link #onExchange}:
 * the connection's timeout) and run in that order, then the access line last, on whichever thread
 * answers: at once when the handler answered itself, or when the answer it handed over ({@link
 * #answerWhen}: a note waiting for its provider holds no request thread, Javalin's {@code
 * ctx.future}) has been written.
 *
 * <p>Jetty counts a request answered later as active until then, so admission and a graceful stop
 * see it as they did. If Jetty ends the exchange first (the server stopped after its drain ran out,
 * or the connection failed), nothing touches the request again: the answer is not written, the
 * steps on the exchange and the access line are skipped (Jetty's own line names it), only the steps
 * that let go of what it held run, and the work goes on to its end. A handler that throws has its
 * steps run at once; the exception handlers answer it and write its line ({@link
 * RequestLog#failed}). Used by one request at a time; the list is handed from the handler's thread
 * to the answering one through the answer's future.
 */
final class RequestEnd {

  private static final Logger log = LoggerFactory.getLogger(RequestEnd.class);

  private static final String ATTRIBUTE = "bolo.request_end";

  /** What the request does after its answer, in the order registered. */
  private final List<Step> steps = new ArrayList<>();

  /** The answer the handler handed over, written when it comes; null while it answers itself. */
  private @Nullable CompletableFuture<?> later;

  /** {@link #later} with every step and the access line after it; what Javalin waits for. */
  private @Nullable CompletableFuture<?> ended;

  /**
   * Whether Jetty ended the exchange before a later answer came (the connection failed, or the
   * server stopped after its drain ran out): the answer then has nowhere to go and is not written.
   */
  private volatile boolean abandoned;

  RequestEnd() {}

  /** Begins the request's end on {@code ctx}; for the outermost wrapper, before anything runs. */
  static RequestEnd begin(Context ctx) {
    RequestEnd end = new RequestEnd();
    ctx.attribute(ATTRIBUTE, end);
    return end;
  }

  /**
   * The request's end.
   *
   * @throws IllegalStateException when the route is not inside {@link RequestLog} (a wiring fault)
   */
  static RequestEnd of(Context ctx) {
    @Nullable RequestEnd end = ctx.attribute(ATTRIBUTE);
    if (end == null) {
      throw new IllegalStateException("no request end on " + ctx.method() + " " + ctx.path());
    }
    return end;
  }

  /**
   * Lets go of something the request holds once it is answered, however it ends. The step must not
   * touch the exchange (see {@link #onExchange}).
   */
  void release(Runnable step) {
    steps.add(new Step(Objects.requireNonNull(step, "step"), false));
  }

  /**
   * A step on the exchange (its connection, its response) once the request is answered; skipped
   * when Jetty ended the exchange before a later answer came.
   */
  void onExchange(Runnable step) {
    steps.add(new Step(Objects.requireNonNull(step, "step"), true));
  }

  /**
   * Answers the request with {@code answer} once {@code result} is there, on the thread that
   * completes it; an {@code answer} that throws is answered by the exception handlers like a
   * handler's. A result already there is answered at once, on this thread. Call it last in the
   * handler, once.
   */
  <T> void answerWhen(Context ctx, CompletableFuture<T> result, Consumer<T> answer) {
    if (result.isDone()) {
      try {
        answer.accept(result.join());
      } catch (CompletionException e) {
        if (e.getCause() instanceof RuntimeException failure) {
          throw failure;
        }
        throw e;
      }
      return;
    }
    handOver(result, answer);
    // Javalin asks for the future once the outermost wrapper has returned (it has finished the
    // request's end by then), and after it has made the request asynchronous.
    ctx.future(
        () -> {
          ctx.req().getAsyncContext().addListener(new Abandoned());
          return forJavalin(ctx);
        });
  }

  /** The answer to write once {@code result} is there, unless Jetty ended the exchange first. */
  <T> void handOver(CompletableFuture<T> result, Consumer<T> answer) {
    if (later != null) {
      throw new IllegalStateException("a request is answered once");
    }
    later =
        result.thenAccept(
            value -> {
              if (!abandoned) {
                answer.accept(value);
              }
            });
  }

  /** Jetty ended the exchange before the later answer came: nothing is written to it. */
  void abandon() {
    abandoned = true;
  }

  /**
   * Ends the request whose handler returned: runs the steps and then {@code accessLine} now, or
   * once the later answer has been written. When that answer fails, the steps still run and the
   * exception handlers write the line; when Jetty ended the exchange first, only the releases run.
   */
  void finish(Runnable accessLine) {
    CompletableFuture<?> answer = later;
    if (answer == null) {
      runSteps();
      accessLine.run();
      return;
    }
    ended =
        answer
            .whenComplete((value, failure) -> runSteps())
            .thenRun(
                () -> {
                  if (!abandoned) {
                    accessLine.run();
                  }
                });
  }

  /** Ends the request whose handler threw: the steps run now; the exception handlers answer it. */
  void finishFailed() {
    if (later == null) {
      runSteps();
    } else {
      ended = later.whenComplete((value, failure) -> runSteps());
    }
  }

  /** Each step in order; one that throws does not keep the others from letting go. */
  private void runSteps() {
    for (Step step : steps) {
      if (step.onExchange() && abandoned) {
        continue;
      }
      try {
        step.action().run();
      } catch (RuntimeException e) {
        log.warn("a step after the request's answer failed", e);
      }
    }
  }

  /**
   * What Javalin waits for to end the request: the answer and every step, while the exchange is
   * still Javalin's. When Jetty ended it first it never completes: Javalin's own steps (its
   * exception handlers, writing the response, completing the exchange) would touch a request Jetty
   * has already recycled. Jetty may end it after the answer looked ({@link #abandoned} is set only
   * once Jetty has told its listeners), so the exchange itself is asked too.
   */
  private CompletableFuture<?> forJavalin(Context ctx) {
    CompletableFuture<?> done = Objects.requireNonNull(ended, "the request's end was not finished");
    CompletableFuture<@Nullable Object> exchange = new CompletableFuture<>();
    done.whenComplete(
        (value, failure) -> {
          if (abandoned || !isWaiting(ctx)) {
            if (failure != null) {
              noteAfterAbandoned(failure);
            }
            return;
          }
          if (failure != null) {
            exchange.completeExceptionally(failure);
          } else {
            exchange.complete(value);
          }
        });
    return exchange;
  }

  /**
   * Whether the exchange still waits for its later answer; a request Jetty has ended and recycled
   * says no, or throws.
   */
  private static boolean isWaiting(Context ctx) {
    try {
      return ctx.req().isAsyncStarted();
    } catch (RuntimeException recycled) {
      return false;
    }
  }

  /**
   * A failure of the answer of a request Jetty had ended: one that began writing just before Jetty
   * ended it finds the response recycled, which is expected; anything else is a fault worth seeing,
   * though nobody is left to answer.
   */
  private static void noteAfterAbandoned(Throwable failure) {
    Throwable cause = failure instanceof CompletionException wrapped ? wrapped.getCause() : failure;
    if (cause instanceof IllegalStateException) {
      log.debug("the answer came after Jetty had ended its exchange: {}", cause.toString());
    } else {
      log.warn("the answer to a request Jetty had already ended failed", cause);
    }
  }

  /** One step after the answer; {@code onExchange} when it touches the exchange. */
  private record Step(Runnable action, boolean onExchange) {}

  /** Notes that Jetty ended the exchange itself; the later answer then writes nothing. */
  private final class Abandoned implements AsyncListener {
    @Override
    public void onComplete(AsyncEvent event) {
      abandon();
    }

    @Override
    public void onTimeout(AsyncEvent event) {
      abandon();
    }

    @Override
    public void onError(AsyncEvent event) {
      abandon();
    }

    @Override
    public void onStartAsync(AsyncEvent event) {}
  }
}
