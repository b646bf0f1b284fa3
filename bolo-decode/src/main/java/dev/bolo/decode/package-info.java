/**
 * Decoding a note into mono PCM with FFmpeg's libraries, streaming, and finding its pauses: what
 * the offline engine hears and where long notes are cut; and writing the pieces of a long note as
 * FLAC for a provider.
 */
@NullMarked
package dev.bolo.decode;

import org.jspecify.annotations.NullMarked;
