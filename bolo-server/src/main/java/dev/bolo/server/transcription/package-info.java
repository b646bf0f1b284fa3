/**
 * The use case: one note in, one answer out. {@link dev.bolo.server.transcription.Transcriber}
 * turns an authenticated upload into its work key, joins or claims the work in the store, runs the
 * engine once, charges the ledger once and answers; {@link
 * dev.bolo.server.transcription.NoteLookup} answers a resend without its audio from the same store.
 */
@NullMarked
package dev.bolo.server.transcription;

import org.jspecify.annotations.NullMarked;
