/** De-duplication: work keys, the settings fingerprint, the store contract and its stores. */
@NullMarked
package dev.bolo.server.dedup;

import org.jspecify.annotations.NullMarked;
