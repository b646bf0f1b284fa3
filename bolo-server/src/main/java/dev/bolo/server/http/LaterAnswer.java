package dev.bolo.server.http;

import io.javalin.http.Context;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A request answered after its handler returned, so that a note waiting for its provider holds no
 * request thread (Javalin's {@code ctx.future}): the handler hands over the result to come and how
 * to answer it ({@link #answerWhen}), and what the handler's wrappers do after it (the drain's
 * count, the access line, letting go of the upload) waits for that answer ({@link #then}, {@link
 * #thenOnExchange}, {@link #thenIfAnswered}). Jetty counts the request as active until then, so
 * admission and a graceful stop see it as they did. If Jetty ends the exchange first (the server
 * stopped after its drain ran out, or the connection failed), nothing touches the request again:
 * the answer is not written, only the steps that let go of what it held run, and the work goes on
 * to its end. Used by one request at a time.
 */
final class LaterAnswer {

  private static final Logger log = LoggerFactory.getLogger(LaterAnswer.class);

  private static final String ATTRIBUTE = "bolo.later_answer";

  /** The answer, with every step registered after it so far. */
  private CompletableFuture<?> done;

  /**
   * Whether Jetty ended the exchange before the answer came (the connection failed, or the server
   * stopped after its drain ran out): the answer then has nowhere to go and is not written.
   */
  private volatile boolean abandoned;

  private <T> LaterAnswer(CompletableFuture<T> result, Consumer<T> answer) {
    this.done =
        result.thenAccept(
            value -> {
              if (!abandoned) {
                answer.accept(value);
              }
            });
  }

  /**
   * Answers the request with {@code answer} once {@code result} is there, on the thread that
   * completes it; an {@code answer} that throws is answered by the exception handlers like a
   * handler's. A result already there is answered at once, on this thread. Call it last in the
   * handler, once.
   */
  static <T> void answerWhen(Context ctx, CompletableFuture<T> result, Consumer<T> answer) {
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
    LaterAnswer later = new LaterAnswer(result, answer);
    ctx.attribute(ATTRIBUTE, later);
    // Javalin asks for the future once every wrapper has returned, all their steps on it, and
    // after it has made the request asynchronous.
    ctx.future(
        () -> {
          ctx.req().getAsyncContext().addListener(later.new Abandoned());
          return later.forJavalin();
        });
  }

  /**
   * What Javalin waits for to end the request: the answer and every step, unless Jetty ended the
   * exchange first. Then it never completes: Javalin's own steps (its exception handlers, writing
   * the response, completing the exchange) would touch a request Jetty has already recycled.
   */
  private CompletableFuture<?> forJavalin() {
    CompletableFuture<@Nullable Object> exchange = new CompletableFuture<>();
    done.whenComplete(
        (value, failure) -> {
          if (abandoned) {
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
   * A failure of the answer or a step of a request Jetty had ended: one that began writing just
   * before Jetty ended it finds the response recycled, which is expected; anything else is a fault
   * worth seeing, though nobody is left to answer.
   */
  private static void noteAfterAbandoned(Throwable failure) {
    Throwable cause = failure instanceof CompletionException wrapped ? wrapped.getCause() : failure;
    if (cause instanceof IllegalStateException) {
      log.debug("the answer came after Jetty had ended its exchange: {}", cause.toString());
    } else {
      log.warn("the answer to a request Jetty had already ended failed", cause);
    }
  }

  /**
   * Runs {@code step} once the request is answered, however: now, or when its later answer has been
   * written or has failed, or found that Jetty had ended the exchange. The step must not touch the
   * exchange (see {@link #thenOnExchange}): it lets go of what the request held. Steps run in the
   * order they were registered.
   */
  static void then(Context ctx, Runnable step) {
    after(ctx, After.ANY_END, step);
  }

  /**
   * As {@link #then}, for a step that touches the exchange (its connection, its response): skipped
   * when Jetty ended the exchange before the answer came.
   */
  static void thenOnExchange(Context ctx, Runnable step) {
    after(ctx, After.ON_EXCHANGE, step);
  }

  /**
   * Runs {@code step} once the request is answered by its handler: now, or when its later answer
   * has been written; not when that failed (the exception handlers answer it then, and do their own
   * step), nor when Jetty ended the exchange first (the answer was not written).
   */
  static void thenIfAnswered(Context ctx, Runnable step) {
    after(ctx, After.IF_ANSWERED, step);
  }

  /** Which ends of a later answer a step runs after. */
  private enum After {
    ANY_END,
    ON_EXCHANGE,
    IF_ANSWERED
  }

  private static void after(Context ctx, After when, Runnable step) {
    @Nullable LaterAnswer later = ctx.attribute(ATTRIBUTE);
    if (later == null) {
      step.run();
      return;
    }
    Runnable guarded =
        when == After.ANY_END
            ? step
            : () -> {
              if (!later.abandoned) {
                step.run();
              }
            };
    later.done =
        when == After.IF_ANSWERED
            ? later.done.thenRun(guarded)
            : later.done.whenComplete((ignored, failure) -> guarded.run());
  }

  /** Notes that Jetty ended the exchange itself; the later answer then writes nothing. */
  private final class Abandoned implements AsyncListener {
    @Override
    public void onComplete(AsyncEvent event) {
      abandoned = true;
    }

    @Override
    public void onTimeout(AsyncEvent event) {
      abandoned = true;
    }

    @Override
    public void onError(AsyncEvent event) {
      abandoned = true;
    }

    @Override
    public void onStartAsync(AsyncEvent event) {}
  }
}
