/**
 * The bundled offline engine: CMU Sphinx4 with its US-English model, run in process on a bounded
 * pool of recognisers. Reached through {@link dev.bolo.server.engine.offline.OfflineEngine}.
 */
@NullMarked
package dev.bolo.server.engine.offline;

import org.jspecify.annotations.NullMarked;
