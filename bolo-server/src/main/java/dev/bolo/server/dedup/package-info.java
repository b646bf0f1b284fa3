/** De-duplication: the store contract, its stores and the coordination of work on them. */
@NullMarked
package dev.bolo.server.dedup;

import org.jspecify.annotations.NullMarked;
