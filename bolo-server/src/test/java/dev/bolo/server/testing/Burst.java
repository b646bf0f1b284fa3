package dev.bolo.server.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import okhttp3.Request;

/**
 * Many uploads sent at the same instant, one thread each, released together by a latch, the way a
 * phone's outbox flushes after a network outage. Not thread safe; close it to stop its threads.
 */
public final class Burst implements AutoCloseable {

  private final ExecutorService pool;
  private final List<Future<Gateway.Reply>> replies = new ArrayList<>();

  private Burst(Gateway gateway, List<Request> requests) throws InterruptedException {
    this.pool = Executors.newFixedThreadPool(requests.size());
    CountDownLatch ready = new CountDownLatch(requests.size());
    CountDownLatch go = new CountDownLatch(1);
    for (Request request : requests) {
      replies.add(
          pool.submit(
              () -> {
                ready.countDown();
                go.await();
                return gateway.send(request);
              }));
    }
    ready.await();
    go.countDown();
  }

  /** Sends every request at once; returns without waiting for the answers. */
  public static Burst send(Gateway gateway, List<Request> requests) throws InterruptedException {
    return new Burst(gateway, requests);
  }

  /** How many requests have their answer so far. */
  public int answered() {
    return (int) replies.stream().filter(Future::isDone).count();
  }

  /** Every answer, in the order of the requests, waiting at most {@code timeout} in all. */
  public List<Gateway.Reply> replies(Duration timeout)
      throws InterruptedException, ExecutionException, TimeoutException {
    long deadline = System.nanoTime() + timeout.toNanos();
    List<Gateway.Reply> answers = new ArrayList<>();
    for (Future<Gateway.Reply> reply : replies) {
      answers.add(reply.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
    }
    return answers;
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
