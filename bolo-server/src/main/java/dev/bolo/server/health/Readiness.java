package dev.bolo.server.health;

import java.util.Locale;
import java.util.Objects;

/**
 * Whether a component (engine, store, ledger) can serve now, and if not fully, why. Reported by
 * {@code GET /readyz}: 200 while every component is {@link State#READY} or {@link State#DEGRADED},
 * 503 once one is {@link State#DOWN}, each component by its state alone; the detail, which may name
 * hosts, users and a library's own words, goes to the log and the operator's API only. Immutable.
 *
 * @param state how usable the component is
 * @param detail a short human explanation, e.g. {@code "offline model loading"}; "ok" when ready
 */
public record Readiness(State state, String detail) {

  /** How usable a component is. */
  public enum State {
    /** Fully usable. */
    READY,
    /**
     * Serves, with a weaker guarantee the detail names (e.g. de-duplication on this instance only
     * while Redis is away); a load balancer should keep sending traffic.
     */
    DEGRADED,
    /** Cannot serve; a load balancer should send traffic elsewhere. */
    DOWN;

    /** The state as {@code /readyz} and the admin API name it: {@code ready}, {@code down}. */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private static final Readiness READY = new Readiness(State.READY, "ok");

  public Readiness {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(detail, "detail");
  }

  public static Readiness ok() {
    return READY;
  }

  /** Serving, with the weaker guarantee {@code detail} names. */
  public static Readiness degraded(String detail) {
    return new Readiness(State.DEGRADED, detail);
  }

  /** Not serving, because of {@code detail}. */
  public static Readiness down(String detail) {
    return new Readiness(State.DOWN, detail);
  }

  /** True only when {@link State#READY}. */
  public boolean isReady() {
    return state == State.READY;
  }
}
