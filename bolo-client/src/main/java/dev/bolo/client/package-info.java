/**
 * The Bolo client SDK: uploads voice notes to a Bolo gateway and resends them only when a resend
 * can help. {@link dev.bolo.client.BoloClient} is the entry point; {@link
 * dev.bolo.client.VoiceNote} is a note from a file, bytes or a stream; {@link
 * dev.bolo.client.Outcome} is how it ended; {@link dev.bolo.client.ResendPolicy} documents when a
 * note is sent again; {@link dev.bolo.client.TranscriptionListener} hears each note's progress.
 * Notes run on OkHttp's asynchronous calls; Java 17 bytecode for Android and the JVM.
 */
@NullMarked
package dev.bolo.client;

import org.jspecify.annotations.NullMarked;
