package dev.bolo.server.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/** Where an answer runs, and under which logging context. */
class AnswerThreadTest {

  /** A thread factory that has no thread to give, as when virtual threads cannot be started. */
  private static final ThreadFactory NO_THREAD =
      task -> {
        throw new IllegalStateException("no thread");
      };

  @AfterEach
  void clearContext() {
    MDC.clear();
  }

  @Test
  void anAnswerRunsOnAThreadOfItsOwnUnderItsRequestsContext() throws Exception {
    List<String> seen = new ArrayList<>();
    ThreadFactory virtual = Thread.ofVirtual().name("answer-under-test").factory();
    List<Thread> started = new ArrayList<>();
    Executor answers =
        AnswerThreads.of(
            task -> {
              Thread thread = virtual.newThread(task);
              started.add(thread);
              return thread;
            },
            Map.of("request_id", "phone-1"));
    MDC.put("request_id", "completing");

    answers.execute(() -> seen.add(Thread.currentThread().getName() + " " + MDC.get("request_id")));
    started.getFirst().join();

    assertThat(seen).containsExactly("answer-under-test phone-1");
    assertThat(MDC.get("request_id")).isEqualTo("completing");
  }

  @Test
  void withNoThreadToBeHadTheCompletingThreadAnswersAndKeepsItsOwnContextAfter() {
    List<String> seen = new ArrayList<>();
    Executor answers = AnswerThreads.of(NO_THREAD, Map.of("request_id", "phone-1"));
    MDC.put("request_id", "completing");
    MDC.put("device", "alpha");

    answers.execute(() -> seen.add(MDC.get("request_id") + " " + MDC.get("device")));

    // The answer ran here, under its request's context only, and this thread's came back.
    assertThat(seen).containsExactly("phone-1 null");
    assertThat(MDC.getCopyOfContextMap())
        .isEqualTo(Map.of("request_id", "completing", "device", "alpha"));
  }

  @Test
  void anAnswerWithoutAContextOfItsOwnDoesNotRunUnderTheCompletingThreads() {
    List<String> seen = new ArrayList<>();
    Executor answers = AnswerThreads.of(NO_THREAD, null);
    MDC.put("request_id", "completing");

    answers.execute(() -> seen.add(String.valueOf(MDC.get("request_id"))));

    assertThat(seen).containsExactly("null");
    assertThat(MDC.get("request_id")).isEqualTo("completing");
  }
}
