/** Speech engines: the {@link dev.bolo.server.engine.SpeechEngine} contract and its outcomes. */
@NullMarked
package dev.bolo.server.engine;

import org.jspecify.annotations.NullMarked;
