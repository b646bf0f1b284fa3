package dev.bolo.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AwaitTest {

  @Test
  void returnsAsSoonAsTheConditionHolds() throws Exception {
    AtomicInteger looks = new AtomicInteger();

    Await.until(Duration.ofSeconds(10), "the third look", () -> looks.incrementAndGet() == 3);

    assertThat(looks).hasValue(3);
  }

  @Test
  void failsAfterTheTimeoutSayingWhatWasSeen() {
    assertThatThrownBy(
            () -> Await.until(Duration.ofMillis(50), () -> false, () -> "the door still shut"))
        .isInstanceOf(AssertionError.class)
        .hasMessage("not reached within PT0.05S: the door still shut");
  }
}
