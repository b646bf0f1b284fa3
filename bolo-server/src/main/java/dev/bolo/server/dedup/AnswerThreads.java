package dev.bolo.server.dedup;

import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;

/**
 * Where {@link WorkCoordinator} delivers a copy's answer: a thread of its own, under the copy's
 * logging context. Stateless and thread safe.
 */
final class AnswerThreads {

  private AnswerThreads() {}

  /**
   * Runs each answer on a virtual thread of its own with {@code context} as its logging context: a
   * client that reads its answer slowly holds up no other copy's answer, and no work's or timer's
   * thread.
   */
  static Executor of(ThreadFactory threads, @Nullable Map<String, String> context) {
    return task -> {
      Runnable withContext =
          () -> {
            // The thread's own context, put back after: the fallback below runs on the completing
            // thread, whose lines go on after this answer.
            @Nullable Map<String, String> own = MDC.getCopyOfContextMap();
            if (context != null) {
              MDC.setContextMap(context);
            } else {
              MDC.clear();
            }
            try {
              task.run();
            } finally {
              if (own == null) {
                MDC.clear();
              } else {
                MDC.setContextMap(own);
              }
            }
          };
      try {
        threads.newThread(withContext).start();
      } catch (RuntimeException noThread) {
        // Never lose an answer for want of a thread: the completing thread writes it instead.
        withContext.run();
      }
    };
  }
}
