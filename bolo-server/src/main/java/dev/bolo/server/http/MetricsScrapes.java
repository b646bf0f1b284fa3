package dev.bolo.server.http;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Writes {@code /metrics}' text on a platform thread, one scrape at a time.
 *
 * <p>The Prometheus text writer wraps its output in a {@link java.io.BufferedWriter} and appends
 * the help texts a character at a time. Made on a virtual thread, JDK 25's {@code BufferedWriter}
 * starts with a small buffer and grows it by exactly the characters written, copying it on every
 * append up to 8,192: one scrape of this gateway's ~170 lines allocated tens of megabytes (measured
 * with a scrape a second beside 2,000 notes in flight on a 256 MB heap, a third of every byte
 * allocated; {@code MetricsScrapeTest}). On a platform thread the writer gets its whole buffer at
 * once. Thread safe; shared by every gateway in the process, its one thread ends when idle.
 */
final class MetricsScrapes {

  /** Scrapes waiting their turn beyond the one running; more are answered 503 at once. */
  private static final int WAITING = 4;

  /** How long a scrape may take, waiting included, before its request is answered 503. */
  private static final Duration DEADLINE = Duration.ofSeconds(10);

  private static final ThreadPoolExecutor SCRAPES = scrapes();

  private MetricsScrapes() {}

  private static ThreadPoolExecutor scrapes() {
    ThreadPoolExecutor executor =
        new ThreadPoolExecutor(
            1,
            1,
            30,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(WAITING),
            Thread.ofPlatform().daemon().name("bolo-metrics-scrape").factory());
    executor.allowCoreThreadTimeOut(true);
    return executor;
  }

  /**
   * The registry's text, or null when the scrape could not run in time (too many waiting, or over
   * {@link #DEADLINE}): the caller answers 503 and the scraper tries again at its next interval.
   */
  static @Nullable String scrape(PrometheusMeterRegistry registry) throws InterruptedException {
    return scrape(registry, DEADLINE);
  }

  /** As {@link #scrape(PrometheusMeterRegistry)}, in the format {@code contentType} names. */
  static @Nullable String scrape(PrometheusMeterRegistry registry, String contentType)
      throws InterruptedException {
    return scrape(() -> registry.scrape(contentType), DEADLINE);
  }

  /** As {@link #scrape(PrometheusMeterRegistry)}, waiting at most {@code deadline} in all. */
  static @Nullable String scrape(PrometheusMeterRegistry registry, Duration deadline)
      throws InterruptedException {
    return scrape(registry::scrape, deadline);
  }

  private static @Nullable String scrape(Callable<String> scrape, Duration deadline)
      throws InterruptedException {
    Future<String> text;
    try {
      text = SCRAPES.submit(scrape);
    } catch (RejectedExecutionException e) {
      return null;
    }
    try {
      return text.get(deadline.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      text.cancel(false);
      return null;
    } catch (ExecutionException e) {
      throw new IllegalStateException("metrics scrape failed", e.getCause());
    }
  }

  /** How many scrapes wait behind the running one (for tests). */
  static int waiting() {
    return SCRAPES.getQueue().size();
  }
}
