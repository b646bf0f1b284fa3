package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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
}
