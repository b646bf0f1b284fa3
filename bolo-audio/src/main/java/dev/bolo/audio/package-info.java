/**
 * The audio containers Bolo accepts, recognised from their first bytes, and a note's length
 * measured from its container with {@link dev.bolo.audio.AudioDurations#measure}. Shared by the
 * gateway, which charges by it, and the client SDK.
 */
@NullMarked
package dev.bolo.audio;

import org.jspecify.annotations.NullMarked;
