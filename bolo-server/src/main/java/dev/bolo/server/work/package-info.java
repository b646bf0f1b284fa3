/**
 * The work a note asks for and how it ended, the vocabulary every layer shares: a {@link
 * dev.bolo.server.work.WorkKey} (device, output-changing settings, audio hash), the {@link
 * dev.bolo.server.work.Outcome} everyone waiting on it receives, the {@link
 * dev.bolo.server.work.Problem} a refusal names and the {@link dev.bolo.server.work.Transcript}
 * kept for replay.
 */
@NullMarked
package dev.bolo.server.work;

import org.jspecify.annotations.NullMarked;
