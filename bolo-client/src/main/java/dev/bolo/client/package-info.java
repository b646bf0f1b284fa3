/**
 * The Bolo client SDK: uploads voice notes to a Bolo gateway and resends them only when a resend
 * can help. {@link dev.bolo.client.BoloClient} is the entry point; {@link
 * dev.bolo.client.ResendPolicy} documents when a note is sent again.
 */
@NullMarked
package dev.bolo.client;

import org.jspecify.annotations.NullMarked;
