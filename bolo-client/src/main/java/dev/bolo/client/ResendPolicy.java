package dev.bolo.client;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;

/**
 * When a failed upload is sent again. Immutable and thread-safe; build one with {@link #builder()}
 * (which starts from the standard policy) and validation that names the bad value, in the style of
 * resilience4j's {@code RetryConfig}.
 *
 * <p>{@link #standard()} is the policy every client uses unless told otherwise:
 *
 * <table>
 *   <caption>The standard policy</caption>
 *   <tr><th>setting</th><th>value</th></tr>
 *   <tr><td>{@code maxAttempts}</td><td>4, the first included</td></tr>
 *   <tr><td>{@code pauses}</td><td>2 s, 5 s, 10 s before attempts 2, 3 and 4</td></tr>
 *   <tr><td>{@code jitter}</td><td>0.2: each pause times a random factor in [0.8, 1.2)</td></tr>
 *   <tr><td>{@code window}</td><td>90 s: no attempt starts later than this after the first</td></tr>
 *   <tr><td>{@code transientStatuses}</td><td>500, 502, 503, 504, 520–524</td></tr>
 *   <tr><td>{@code retryAfterStatuses}</td><td>429: resent only when it says when</td></tr>
 * </table>
 *
 * <p>The jitter is bounded, not "full": a fleet that failed together does not come back together,
 * and no pause shrinks to nothing. A {@code Retry-After} longer than the pause replaces it; a wait
 * that would start the next attempt outside the window gives up at once rather than sleeping only
 * to fail.
 *
 * <p>Network failures are resent when they are connection failures, an unknown host or a timeout;
 * never TLS or protocol errors. The gateway's de-duplication makes each resend safe: the same
 * {@code Idempotency-Key} and audio are transcribed and charged once.
 */
public final class ResendPolicy {

  private static final ResendPolicy STANDARD =
      new ResendPolicy(
          4,
          List.of(Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(10)),
          0.2,
          Duration.ofSeconds(90),
          // 520–524 are Cloudflare's "the origin failed" family, as a proxy in front may answer.
          Set.of(500, 502, 503, 504, 520, 521, 522, 523, 524),
          // RFC 9110 §15.5.30 (RFC 6585 §4): 429 means "slow down"; without Retry-After we cannot
          // know how long, and hammering a rate limiter only extends the ban.
          Set.of(429));

  private final int maxAttempts;
  private final List<Duration> pauses;
  private final double jitter;
  private final Duration window;
  private final Set<Integer> transientStatuses;
  private final Set<Integer> retryAfterStatuses;

  private ResendPolicy(
      int maxAttempts,
      List<Duration> pauses,
      double jitter,
      Duration window,
      Set<Integer> transientStatuses,
      Set<Integer> retryAfterStatuses) {
    this.maxAttempts = maxAttempts;
    this.pauses = List.copyOf(pauses);
    this.jitter = jitter;
    this.window = window;
    this.transientStatuses = Set.copyOf(transientStatuses);
    this.retryAfterStatuses = Set.copyOf(retryAfterStatuses);
  }

  /** 4 attempts, pauses 2 s / 5 s / 10 s with ±20 % jitter, within 90 s. */
  public static ResendPolicy standard() {
    return STANDARD;
  }

  /** A builder holding the standard policy's values, to change some of them. */
  public static Builder builder() {
    return STANDARD.toBuilder();
  }

  /** A builder holding this policy's values. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** This policy with exact pauses, for callers (and tests) that need exact timing. */
  public ResendPolicy withoutJitter() {
    return toBuilder().jitter(0).build();
  }

  /** Attempts including the first, at least 1. */
  public int maxAttempts() {
    return maxAttempts;
  }

  /** The pause before attempt 2, 3, …; at least {@code maxAttempts - 1} of them. */
  public List<Duration> pauses() {
    return pauses;
  }

  /** The largest relative change to a pause, in [0, 1). */
  public double jitter() {
    return jitter;
  }

  /** The time from the first attempt's start after which no attempt starts. */
  public Duration window() {
    return window;
  }

  /** HTTP statuses that are resent. */
  public Set<Integer> transientStatuses() {
    return transientStatuses;
  }

  /** HTTP statuses that are resent only when they carry a valid {@code Retry-After}. */
  public Set<Integer> retryAfterStatuses() {
    return retryAfterStatuses;
  }

  /**
   * The jittered pause before {@code attempt} (2 for the first resend): the scheduled pause times a
   * factor drawn uniformly from [1 - jitter, 1 + jitter).
   */
  Duration pauseBefore(int attempt, Random random) {
    if (attempt < 2 || attempt > maxAttempts) {
      throw new IllegalArgumentException("attempt must be in [2, " + maxAttempts + "]: " + attempt);
    }
    Duration pause = pauses.get(attempt - 2);
    if (jitter == 0) {
      return pause;
    }
    double factor = 1 + jitter * (2 * random.nextDouble() - 1);
    return Duration.ofNanos(Math.round(pause.toNanos() * factor));
  }

  /**
   * Whether a resend of the same note may succeed where this attempt failed: connection failures,
   * unknown host, timeouts, a status in {@link #transientStatuses()}, and a status in {@link
   * #retryAfterStatuses()} that says how long to wait, and a lookup's 202 (the note's work still
   * runs; the next attempt asks again). Not TLS or protocol errors, not other statuses (the request
   * itself is wrong, or the gateway will never do it).
   */
  public boolean isTransient(Failure failure) {
    if (failure instanceof Failure.Network network) {
      return switch (network.kind()) {
        case CONNECTION, UNKNOWN_HOST, TIMEOUT -> true;
        case TLS, PROTOCOL -> false;
      };
    }
    Failure.Http http = (Failure.Http) failure;
    // A lookup found the note's work still running: asking again later finds it finished.
    if (http.status() == 202 && Lookup.RUNNING.equals(http.code())) {
      return true;
    }
    if (retryAfterStatuses.contains(http.status())) {
      return http.retryAfter() != null;
    }
    return transientStatuses.contains(http.status());
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof ResendPolicy that
        && maxAttempts == that.maxAttempts
        && Double.compare(jitter, that.jitter) == 0
        && pauses.equals(that.pauses)
        && window.equals(that.window)
        && transientStatuses.equals(that.transientStatuses)
        && retryAfterStatuses.equals(that.retryAfterStatuses);
  }

  @Override
  public int hashCode() {
    return Objects.hash(maxAttempts, pauses, jitter, window, transientStatuses, retryAfterStatuses);
  }

  @Override
  public String toString() {
    return "ResendPolicy[maxAttempts="
        + maxAttempts
        + ", pauses="
        + pauses
        + ", jitter="
        + jitter
        + ", window="
        + window
        + ", transientStatuses="
        + new TreeSet<>(transientStatuses)
        + ", retryAfterStatuses="
        + new TreeSet<>(retryAfterStatuses)
        + "]";
  }

  /**
   * Builds a {@link ResendPolicy}; each setter checks its value and names it in the message, and
   * {@link #build()} checks the settings against each other. Not thread-safe.
   */
  public static final class Builder {
    private int maxAttempts;
    private List<Duration> pauses;
    private double jitter;
    private Duration window;
    private Set<Integer> transientStatuses;
    private Set<Integer> retryAfterStatuses;

    private Builder(ResendPolicy from) {
      this.maxAttempts = from.maxAttempts;
      this.pauses = from.pauses;
      this.jitter = from.jitter;
      this.window = from.window;
      this.transientStatuses = from.transientStatuses;
      this.retryAfterStatuses = from.retryAfterStatuses;
    }

    /** Attempts including the first; 1 turns resending off. */
    public Builder maxAttempts(int maxAttempts) {
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("maxAttempts must be >= 1: " + maxAttempts);
      }
      this.maxAttempts = maxAttempts;
      return this;
    }

    /** The pauses before attempt 2, 3, …; none may be negative. */
    public Builder pauses(Duration... pauses) {
      return pauses(Arrays.asList(pauses));
    }

    /** The pauses before attempt 2, 3, …; none may be negative. */
    public Builder pauses(List<Duration> pauses) {
      for (Duration pause : pauses) {
        if (Objects.requireNonNull(pause, "pause").isNegative()) {
          throw new IllegalArgumentException("pauses must not be negative: " + pauses);
        }
      }
      this.pauses = List.copyOf(pauses);
      return this;
    }

    /** The largest relative change to a pause, in [0, 1); 0 for exact pauses. */
    public Builder jitter(double jitter) {
      if (!(jitter >= 0 && jitter < 1)) {
        throw new IllegalArgumentException("jitter must be in [0, 1): " + jitter);
      }
      this.jitter = jitter;
      return this;
    }

    /** No attempt starts later than this after the first one started; must be positive. */
    public Builder window(Duration window) {
      Objects.requireNonNull(window, "window");
      if (window.isNegative() || window.isZero()) {
        throw new IllegalArgumentException("window must be positive: " + window);
      }
      this.window = window;
      return this;
    }

    /** HTTP statuses that are resent (4xx–9xx; a success or redirect is never "transient"). */
    public Builder transientStatuses(int... statuses) {
      this.transientStatuses = statuses("transientStatuses", statuses);
      return this;
    }

    /** HTTP statuses that are resent only when they carry a valid {@code Retry-After}. */
    public Builder retryAfterStatuses(int... statuses) {
      this.retryAfterStatuses = statuses("retryAfterStatuses", statuses);
      return this;
    }

    /** The policy; throws IllegalArgumentException when the settings contradict each other. */
    public ResendPolicy build() {
      if (pauses.size() < maxAttempts - 1) {
        throw new IllegalArgumentException(
            "need a pause before each of " + (maxAttempts - 1) + " resends: " + pauses);
      }
      Set<Integer> both = new TreeSet<>(transientStatuses);
      both.retainAll(retryAfterStatuses);
      if (!both.isEmpty()) {
        throw new IllegalArgumentException(
            "a status is either always resent or only with Retry-After, not both: " + both);
      }
      return new ResendPolicy(
          maxAttempts, pauses, jitter, window, transientStatuses, retryAfterStatuses);
    }

    private static Set<Integer> statuses(String name, int... statuses) {
      for (int status : statuses) {
        if (status < 400 || status > 999) {
          throw new IllegalArgumentException(
              name + " must be error statuses in [400, 999]: " + status);
        }
      }
      return IntStream.of(statuses).boxed().collect(Collectors.toUnmodifiableSet());
    }
  }
}
