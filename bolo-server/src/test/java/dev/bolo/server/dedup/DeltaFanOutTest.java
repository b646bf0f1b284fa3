package dev.bolo.server.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.engine.Settings;
import dev.bolo.server.engine.TranscriptDeltas;
import dev.bolo.server.work.WorkKey;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DeltaFanOutTest {

  private static final WorkKey KEY =
      WorkKey.of(
          "alpha",
          Settings.canonical("openai", "whisper-1", null, null, null, null, null, List.of()),
          "a".repeat(64));

  private final DeltaFanOut fanOut = new DeltaFanOut();

  @Test
  void everyListenerReceivesThePiecesInOrderAndALateOneCatchesUpFirst() {
    List<String> first = new ArrayList<>();
    List<String> late = new ArrayList<>();
    try (DeltaFanOut.Subscription own = fanOut.subscribe(KEY, first::add);
        DeltaFanOut.Publication work = fanOut.publish(KEY)) {
      assertThat(own.joinedRunningWork()).isFalse();
      work.accept("Hel");
      work.accept("lo");
      try (DeltaFanOut.Subscription joined = fanOut.subscribe(KEY, late::add)) {
        assertThat(joined.joinedRunningWork()).isTrue();
        work.accept(" world");
      }
    }
    assertThat(first).containsExactly("Hel", "lo", " world");
    assertThat(late).containsExactly("Hello", " world");
    assertThat(fanOut.channels()).isZero();
  }

  @Test
  void aCopyArrivingAfterAFailedRunNeverSeesItsText() {
    List<String> afterwards = new ArrayList<>();
    try (DeltaFanOut.Publication failed = fanOut.publish(KEY)) {
      failed.accept("half a tran");
    }
    try (DeltaFanOut.Subscription next = fanOut.subscribe(KEY, afterwards::add);
        DeltaFanOut.Publication rerun = fanOut.publish(KEY)) {
      assertThat(next.joinedRunningWork()).isFalse();
      rerun.accept("whole");
    }
    assertThat(afterwards).containsExactly("whole");
    assertThat(fanOut.channels()).isZero();
  }

  @Test
  void listenersJoiningConcurrentlyEachSeeTheWholeTextExactlyOnce() throws Exception {
    int listeners = 32;
    int pieces = 200;
    ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    CountDownLatch go = new CountDownLatch(1);
    List<Future<String>> seen = new ArrayList<>();
    try (DeltaFanOut.Publication work = fanOut.publish(KEY)) {
      CountDownLatch subscribed = new CountDownLatch(listeners);
      CountDownLatch finished = new CountDownLatch(1);
      for (int i = 0; i < listeners; i++) {
        seen.add(
            threads.submit(
                () -> {
                  List<String> received = new CopyOnWriteArrayList<>();
                  go.await();
                  TranscriptDeltas sink = received::add;
                  try (DeltaFanOut.Subscription ignored = fanOut.subscribe(KEY, sink)) {
                    subscribed.countDown();
                    finished.await(10, TimeUnit.SECONDS);
                  }
                  return String.join("", received);
                }));
      }
      go.countDown();
      for (int p = 0; p < pieces; p++) {
        work.accept(Integer.toString(p % 10));
      }
      assertThat(subscribed.await(10, TimeUnit.SECONDS)).isTrue();
      finished.countDown();
    }
    StringBuilder whole = new StringBuilder();
    for (int p = 0; p < pieces; p++) {
      whole.append(p % 10);
    }
    for (Future<String> text : seen) {
      assertThat(text.get(10, TimeUnit.SECONDS)).isEqualTo(whole.toString());
    }
    threads.shutdown();
    assertThat(fanOut.channels()).isZero();
  }
}
