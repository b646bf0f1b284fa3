package dev.bolo.client;

import java.time.Clock;
import java.util.Objects;
import java.util.Random;
import java.util.function.LongSupplier;

/**
 * The client's sense of time and chance: wall time (to read {@code Retry-After} dates), elapsed
 * time (for the policy's window), the scheduler of pauses and the source of jitter. Apps leave it
 * at {@link #system()}; tests replace it to run the resend policy without waiting. Immutable.
 */
public final class Timing {

  private static final Timing SYSTEM = new Builder().build();

  private final Clock clock;
  private final LongSupplier ticker;
  private final Scheduler scheduler;
  private final Random random;

  private Timing(Builder builder) {
    this.clock = builder.clock;
    this.ticker = builder.ticker;
    this.scheduler = builder.scheduler;
    this.random = builder.random;
  }

  /** The system clock, {@code System::nanoTime}, {@link Scheduler#system()}, a shared Random. */
  public static Timing system() {
    return SYSTEM;
  }

  /** A builder starting from {@link #system()}. */
  public static Builder builder() {
    return new Builder();
  }

  Clock clock() {
    return clock;
  }

  LongSupplier ticker() {
    return ticker;
  }

  Scheduler scheduler() {
    return scheduler;
  }

  Random random() {
    return random;
  }

  /** Builds a {@link Timing}. Not thread-safe. */
  public static final class Builder {
    private Clock clock = Clock.systemUTC();
    private LongSupplier ticker = System::nanoTime;
    private Scheduler scheduler = Scheduler.system();
    private Random random = new Random();

    private Builder() {}

    /** Wall time, to read {@code Retry-After} dates. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Elapsed time in nanoseconds, for the policy's window. */
    public Builder ticker(LongSupplier ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /** Runs the next attempt after a pause. */
    public Builder scheduler(Scheduler scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /** Draws the jitter; must be thread-safe ({@link Random} is). */
    public Builder random(Random random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    /** The timing; every part not set is the system's. */
    public Timing build() {
      return new Timing(this);
    }
  }
}
