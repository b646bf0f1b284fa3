package dev.bolo.server.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.testkit.Await;
import io.micrometer.core.instrument.Gauge;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * A storm of duplicate notes over several gateway instances sharing one store, for the tests that
 * fault the store in the middle of one: sends the copies, waits until the moment a fault should
 * find (every note at the held provider, its other copies waiting), and counts what came back.
 * Closing it hangs up the phones still waiting.
 */
public final class Storm implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final List<Gateway> gateways;
  private final FakeProvider provider;
  private final int copies;
  private final Duration patience;
  private final ExecutorService phones = Executors.newVirtualThreadPerTaskExecutor();

  /**
   * The phones' client: each waits for its answer through every wait of the storm (each up to
   * {@code patience}), not the 60 s of a gateway's own client, so a storm slowed by a busy machine
   * fails on what it awaits, not on a phone that hung up first.
   */
  private final OkHttpClient phone;

  /**
   * @param copies how many copies of each note a whole storm sends, spread over the instances
   * @param patience the bound on anything awaited
   */
  public Storm(List<Gateway> gateways, FakeProvider provider, int copies, Duration patience) {
    this.gateways = List.copyOf(gateways);
    this.provider = provider;
    this.copies = copies;
    this.patience = patience;
    this.phone =
        this.gateways
            .getFirst()
            .client()
            .newBuilder()
            .readTimeout(patience.multipliedBy(6))
            .build();
  }

  /** Distinct notes of {@code millis} each. */
  public static List<byte[]> notes(int count, int millis, long seed) {
    List<byte[]> notes = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      notes.add(TestAudio.wav(millis, seed + i));
    }
    return notes;
  }

  /**
   * Sends every copy of every note at once and returns once every note is at the (held) provider
   * and every other copy waits for it.
   */
  public List<Future<Gateway.Reply>> atTheProvider(List<byte[]> notes) throws InterruptedException {
    return atTheProvider(notes, copies);
  }

  /** {@link #atTheProvider(List)} with only the first {@code sent} copies of each note. */
  public List<Future<Gateway.Reply>> atTheProvider(List<byte[]> notes, int sent)
      throws InterruptedException {
    int before = provider.calls();
    provider.hold();
    List<Future<Gateway.Reply>> storm = send(notes, 0, sent);
    int notesCount = notes.size();
    untilAllWait(storm, "every copy waits on its instance");
    Await.until(
        patience,
        () -> provider.calls() - before == notesCount,
        () ->
            "every note is at the provider: "
                + (provider.calls() - before)
                + " calls for "
                + notesCount
                + " notes, "
                + waitingCopies()
                + " copies waiting, "
                + gauges("bolo_dedup_waiting_on_other_instances")
                + " on other instances, "
                + gauges("bolo_dedup_store_degraded")
                + " instances degraded");
    // Each note's copies reach min(sent, instances) instances: one runs it, the others wait.
    int waitingElsewhere = notesCount * (Math.min(sent, gateways.size()) - 1);
    Await.until(
        patience,
        "the other instances wait for each note",
        () -> gauges("bolo_dedup_waiting_on_other_instances") == waitingElsewhere);
    return storm;
  }

  /**
   * Sends copies {@code from} to {@code to} (exclusive) of every note at once, copy {@code c} of
   * note {@code n} to instance {@code (n + c) % instances}.
   */
  public List<Future<Gateway.Reply>> send(List<byte[]> notes, int from, int to) {
    List<Future<Gateway.Reply>> replies = new ArrayList<>();
    for (int copy = from; copy < to; copy++) {
      for (int n = 0; n < notes.size(); n++) {
        Gateway gateway = gateways.get((n + copy) % gateways.size());
        byte[] note = notes.get(n);
        replies.add(phones.submit(() -> answer(gateway.nativeUpload(Gateway.TOKEN_A, note))));
      }
    }
    return replies;
  }

  private Gateway.Reply answer(Request request) throws IOException {
    try (Response response = phone.newCall(request).execute()) {
      return Gateway.replyOf(response);
    }
  }

  /** A fault done to the store under a storm. */
  public interface Fault {
    void run() throws Exception;
  }

  /**
   * One storm with {@code fault} done to the store once every note is at the provider and its other
   * copies wait for it: checks one call and one charge per note ({@code chargedMillis} reads the
   * ledger's total for the device, each note {@code noteMillis} long), every copy answered 200, and
   * every result replayable everywhere afterwards; returns its figures.
   */
  public String oneCallPerNoteThrough(
      List<byte[]> notes, long noteMillis, String what, Fault fault, LongSupplier chargedMillis)
      throws Exception {
    int callsBefore = provider.calls();
    long chargedBefore = chargedMillis.getAsLong();
    long started = System.nanoTime();
    List<Future<Gateway.Reply>> replies = atTheProvider(notes);
    long faultAt = System.nanoTime();
    fault.run();
    Duration faultTook = Duration.ofNanos(System.nanoTime() - faultAt);
    provider.release();

    Map<Integer, Integer> statuses = statuses(replies);
    Duration stormTook = Duration.ofNanos(System.nanoTime() - started);
    int calls = provider.calls() - callsBefore;
    Await.until(patience, "every instance uses the store again", this::allUseTheStore);
    long charged = chargedMillis.getAsLong() - chargedBefore;
    int replayCalls = replayEverywhere(notes);
    String figures =
        String.format(
            "%s (took %d ms): %d notes x %d copies, provider calls %d, charged %d ms, answers %s,"
                + " storm took %d ms, resending every note to every instance cost %d more calls",
            what,
            faultTook.toMillis(),
            notes.size(),
            copies,
            calls,
            charged,
            statuses,
            stormTook.toMillis(),
            replayCalls);

    assertThat(statuses).as(figures).isEqualTo(Map.of(200, notes.size() * copies));
    assertThat(calls).as("provider calls: " + figures).isEqualTo(notes.size());
    assertThat(charged).as("one charge per note: " + figures).isEqualTo(notes.size() * noteMillis);
    assertThat(replayCalls).as("calls made by resends: " + figures).isZero();
    return figures;
  }

  /** The answers' statuses, counted. */
  public Map<Integer, Integer> statuses(List<Future<Gateway.Reply>> replies) throws Exception {
    Map<Integer, Integer> statuses = new TreeMap<>();
    long deadline = System.nanoTime() + patience.toNanos();
    for (Future<Gateway.Reply> reply : replies) {
      Gateway.Reply answer =
          reply.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      statuses.merge(answer.status(), 1, Integer::sum);
    }
    return statuses;
  }

  /**
   * Resends every note once to every instance; returns the provider calls they caused, after
   * checking each was a replay.
   */
  public int replayEverywhere(List<byte[]> notes) throws IOException {
    int before = provider.calls();
    for (byte[] note : notes) {
      for (Gateway gateway : gateways) {
        Gateway.Reply reply = gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, note));
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        JsonNode body = JSON.readTree(reply.body());
        assertThat(body.get("deduplicated").asBoolean()).as("replayed").isTrue();
      }
    }
    return provider.calls() - before;
  }

  /**
   * Returns once every copy in {@code replies} waits on its instance (the provider holds every
   * call). Fails at once, saying what it saw, when a copy was answered meanwhile or more copies
   * wait than were sent: then they never all will, and waiting out the patience hides why.
   */
  public void untilAllWait(List<Future<Gateway.Reply>> replies, String what)
      throws InterruptedException {
    Await.until(
        patience,
        () -> {
          int waiting = waitingCopies();
          if (waiting > replies.size() || replies.stream().anyMatch(Future::isDone)) {
            throw new AssertionError(what + ", but cannot: " + state(replies));
          }
          return waiting == replies.size();
        },
        () -> what + ": " + state(replies));
  }

  /**
   * What a storm's copies are doing, for a wait's failure message: how many wait, the provider's
   * calls (held now, and any that gave up being held), and the answers already back (before the
   * provider is released, a copy answered was refused, failed, or waited out its deadline).
   */
  public String state(List<Future<Gateway.Reply>> replies) {
    Map<Integer, Integer> answered = new TreeMap<>();
    List<String> bodies = new ArrayList<>();
    for (Future<Gateway.Reply> reply : replies) {
      if (reply.state() == Future.State.SUCCESS) {
        Gateway.Reply answer = reply.resultNow();
        answered.merge(answer.status(), 1, Integer::sum);
        if (bodies.size() < 3) {
          bodies.add(answer.status() + " " + answer.body());
        }
      } else if (reply.state() == Future.State.FAILED) {
        answered.merge(-1, 1, Integer::sum);
        if (bodies.size() < 3) {
          bodies.add("no answer: " + reply.exceptionNow());
        }
      }
    }
    return waitingCopies()
        + " of "
        + replies.size()
        + " copies waiting, "
        + gauges("bolo_dedup_waiting_on_other_instances")
        + " resolutions on other instances, "
        + gauges("bolo_dedup_store_degraded")
        + " instances degraded, provider calls "
        + provider.calls()
        + " ("
        + provider.inFlight()
        + " held now, "
        + provider.lapsedHolds()
        + " gave up being held)"
        + ", answered early (status: count, -1 none) "
        + answered
        + " "
        + bodies;
  }

  /** How many copies wait for an outcome, over the instances. */
  public int waitingCopies() {
    return gauges("bolo_dedup_waiting_copies");
  }

  /** A gauge's sum over the instances. */
  public int gauges(String name) {
    double sum = 0;
    for (Gateway gateway : gateways) {
      Gauge gauge = gateway.app().metrics().find(name).gauge();
      sum += gauge == null ? 0 : gauge.value();
    }
    return (int) sum;
  }

  /** Whether every instance reports its store ready (not degraded) on {@code /readyz}. */
  public boolean allUseTheStore() {
    for (Gateway gateway : gateways) {
      try {
        if (!storeReadiness(gateway).equals("ready")) {
          return false;
        }
      } catch (IOException e) {
        return false;
      }
    }
    return true;
  }

  /** The store component of {@code /readyz} on one instance. */
  public static String storeReadiness(Gateway gateway) throws IOException {
    Gateway.Reply ready = gateway.send(get(gateway, "/readyz"));
    assertThat(ready.status()).as(ready.body()).isEqualTo(200);
    return JSON.readTree(ready.body()).path("components").path("store").asText();
  }

  public static Request get(Gateway gateway, String path) {
    return new Request.Builder().url(gateway.url(path)).build();
  }

  @Override
  public void close() {
    phones.shutdownNow();
  }
}
