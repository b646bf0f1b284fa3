package dev.bolo.server;

/**
 * Whether a component (engine, store, ledger) can serve now, and if not, why. Reported by {@code
 * GET /readyz}.
 *
 * @param ready true when the component is usable
 * @param detail a short human explanation, e.g. {@code "model loading"}; "ok" when ready
 */
public record Readiness(boolean ready, String detail) {

  private static final Readiness READY = new Readiness(true, "ok");

  public static Readiness ok() {
    return READY;
  }

  public static Readiness notReady(String detail) {
    return new Readiness(false, detail);
  }
}
