/**
 * Moonshine tiny (English) on ONNX Runtime, with Silero VAD cutting a note into utterances: the
 * offline recogniser whose weights are committed under {@code models/}. Reached through {@link
 * dev.bolo.server.engine.moonshine.MoonshineRecognizer}.
 */
@NullMarked
package dev.bolo.server.engine.moonshine;

import org.jspecify.annotations.NullMarked;
