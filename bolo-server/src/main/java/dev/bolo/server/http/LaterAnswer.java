package dev.bolo.server.http;

import io.javalin.http.Context;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;

/**
 * A request answered after its handler returned, so that a note waiting for its provider holds no
 * request thread (Javalin's {@code ctx.future}): the handler hands over the future that writes the
 * answer ({@link #answerWhen}), and what the handler's wrappers do after it (the drain's count, the
 * access line, closing the upload) waits for that future ({@link #then}, {@link #thenIfAnswered}).
 * Jetty counts the request as active until then, so admission and a graceful stop see it as they
 * did. Used by one request at a time.
 */
final class LaterAnswer {

  private static final String ATTRIBUTE = "bolo.later_answer";

  /** The answer, with everything registered after it so far. */
  private CompletableFuture<?> done;

  private LaterAnswer(CompletableFuture<?> answered) {
    this.done = answered;
  }

  /**
   * Answers the request when {@code answered} completes (it writes the answer); a failure of it is
   * answered by the exception handlers like a handler's. An answer already written is not deferred.
   * Call it last in the handler, once.
   */
  static void answerWhen(Context ctx, CompletableFuture<?> answered) {
    if (answered.isDone()) {
      try {
        answered.join();
      } catch (CompletionException e) {
        if (e.getCause() instanceof RuntimeException failure) {
          throw failure;
        }
        throw e;
      }
      return;
    }
    LaterAnswer later = new LaterAnswer(answered);
    ctx.attribute(ATTRIBUTE, later);
    // Javalin asks for the future once every wrapper has returned: all their steps are on it.
    ctx.future(() -> later.done);
  }

  /**
   * Runs {@code step} once the request is answered, however: now, or when its later answer has been
   * written or has failed. Steps run in the order they were registered.
   */
  static void then(Context ctx, Runnable step) {
    @Nullable LaterAnswer later = ctx.attribute(ATTRIBUTE);
    if (later == null) {
      step.run();
      return;
    }
    later.done = later.done.whenComplete((ignored, failure) -> step.run());
  }

  /**
   * Runs {@code step} once the request is answered by its handler: now, or when its later answer
   * has been written; not when that failed (the exception handlers answer it then, and do their own
   * step).
   */
  static void thenIfAnswered(Context ctx, Runnable step) {
    @Nullable LaterAnswer later = ctx.attribute(ATTRIBUTE);
    if (later == null) {
      step.run();
      return;
    }
    later.done = later.done.thenRun(step);
  }
}
