/**
 * The Gemini engine: transcription through Google's {@code generateContent}, with the audio inline
 * or, for large notes, through the Files API. Start at {@link
 * dev.bolo.server.engine.gemini.GeminiEngines}.
 */
@NullMarked
package dev.bolo.server.engine.gemini;

import org.jspecify.annotations.NullMarked;
