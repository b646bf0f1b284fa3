package dev.bolo.server.engine.gemini;

import java.time.Duration;

/** Waits; tests pass one that records the wait and returns at once. */
@FunctionalInterface
interface Sleeper {

  Sleeper THREAD = duration -> Thread.sleep(duration);

  void sleep(Duration duration) throws InterruptedException;
}
