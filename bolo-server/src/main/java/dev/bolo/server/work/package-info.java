/**
 * The work a note asks for and how it ended, the vocabulary every layer shares: a {@link
 * dev.bolo.server.work.WorkKey} (device, output-changing settings, audio hash), the {@link
 * dev.bolo.server.work.WorkResult} everyone waiting on it receives, the {@link
 * dev.bolo.server.work.Problem} a refusal names, the {@link dev.bolo.server.work.KeptTranscript}
 * kept for replay and the {@link dev.bolo.server.work.Replay} an answer came from.
 */
@NullMarked
package dev.bolo.server.work;

import org.jspecify.annotations.NullMarked;
