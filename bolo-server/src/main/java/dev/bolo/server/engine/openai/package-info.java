/** The engine for any OpenAI-compatible {@code /audio/transcriptions} service. */
@NullMarked
package dev.bolo.server.engine.openai;

import org.jspecify.annotations.NullMarked;
