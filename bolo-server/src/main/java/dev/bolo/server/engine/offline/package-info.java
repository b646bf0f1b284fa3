/**
 * The bundled offline engine: Moonshine tiny (English) and Silero VAD on ONNX Runtime, run in
 * process on a bounded pool of recognisers. Reached through {@link
 * dev.bolo.server.engine.offline.OfflineEngine}.
 */
@NullMarked
package dev.bolo.server.engine.offline;

import org.jspecify.annotations.NullMarked;
