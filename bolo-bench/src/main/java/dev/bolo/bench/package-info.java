/** Benchmarks: the gateway load harness and engine measurements. Run by hand, not in tests. */
@NullMarked
package dev.bolo.bench;

import org.jspecify.annotations.NullMarked;
