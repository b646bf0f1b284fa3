/** Deepgram's pre-recorded transcription ({@code POST /v1/listen}) as an engine. */
@NullMarked
package dev.bolo.server.engine.deepgram;

import org.jspecify.annotations.NullMarked;
