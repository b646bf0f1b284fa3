/**
 * Time's seams that the JDK lacks: the gateway reads the clock ({@link java.time.Clock}) and its
 * tickers ({@link java.util.function.LongSupplier} of nanoseconds) through JDK types, and waits
 * through a {@link Sleeper}; the composition root hands in the real ones.
 */
@NullMarked
package dev.bolo.server.time;

import org.jspecify.annotations.NullMarked;
