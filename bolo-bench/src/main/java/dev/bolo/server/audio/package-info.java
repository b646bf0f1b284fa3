/**
 * Microbenchmarks of the server's upload path, in the server's package so that they measure its
 * package-private parts ({@code AudioSink}) exactly as the server calls them.
 */
@NullMarked
package dev.bolo.server.audio;

import org.jspecify.annotations.NullMarked;
