package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What a {@code /metrics} scrape costs the gateway, and how many may wait. */
class MetricsScrapeTest {

  @RegisterExtension final OpenAiGateway fixture = OpenAiGateway.onDemand(Map.of());

  @Test
  void aScrapeAllocatesAboutItsOwnSizeNotTensOfMegabytes() throws Exception {
    Gateway gateway = fixture.start(Map.of());
    assertThat(gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, TestAudio.wav(300, 1))).status())
        .isEqualTo(200);
    for (int i = 0; i < 5; i++) {
      MetricsTest.scrape(gateway);
    }
    var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    int scrapes = 10;
    long textBytes = 0;
    long perScrape = Long.MAX_VALUE;
    for (int i = 0; i < scrapes; i++) {
      long before = threads.getTotalThreadAllocatedBytes();
      textBytes += MetricsTest.scrape(gateway).length();
      perScrape = Math.min(perScrape, threads.getTotalThreadAllocatedBytes() - before);
    }

    // The text is ~15 KB; the gateway, the test's client and its string copies allocate a few
    // times that. Written on a virtual thread, JDK 25's BufferedWriter grew its buffer a character
    // at a time: tens of megabytes per scrape. Every thread's allocation counts, the gateway's
    // background work's too, which a slow machine spreads over more of each scrape: the quietest
    // scrape is the one measured (beside two CPU hogs the average of ten once read 16 MB).
    assertThat(textBytes / scrapes).isBetween(5_000L, 100_000L);
    assertThat(perScrape).as("bytes allocated by the quietest scrape").isLessThan(2_000_000L);
  }

  @Test
  void scrapesBeyondTheOneRunningAndFourWaitingAreRefusedAtOnce() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    CountDownLatch inScrape = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Gauge.builder(
            "bolo_test_slow",
            () -> {
              inScrape.countDown();
              try {
                release.await(30, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return 1.0;
            })
        .register(registry);
    ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor();
    try {
      List<Future<String>> admitted = new ArrayList<>();
      admitted.add(callers.submit(() -> MetricsScrapes.scrape(registry)));
      assertThat(inScrape.await(10, TimeUnit.SECONDS)).isTrue();
      for (int i = 0; i < 4; i++) {
        admitted.add(callers.submit(() -> MetricsScrapes.scrape(registry)));
      }
      dev.bolo.testkit.Await.until(
          Duration.ofSeconds(10), "four scrapes waiting", () -> MetricsScrapes.waiting() == 4);
      // Given an hour, a scrape that waited its turn would get the text once the first ended:
      // only one refused at once comes back empty, while the first still runs.
      String refused = MetricsScrapes.scrape(registry, Duration.ofHours(1));
      assertThat(refused).as("a scrape beyond the bound").isNull();
      assertThat(admitted.getFirst()).as("the running scrape still runs").isNotDone();
      release.countDown();
      for (Future<String> one : admitted) {
        assertThat(one.get(10, TimeUnit.SECONDS)).contains("bolo_test_slow 1.0");
      }
    } finally {
      release.countDown();
      callers.shutdownNow();
      registry.close();
    }
  }
}
