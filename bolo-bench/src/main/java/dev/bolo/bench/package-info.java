/** Benchmark harnesses run by hand; see the module's README. */
@NullMarked
package dev.bolo.bench;

import org.jspecify.annotations.NullMarked;
