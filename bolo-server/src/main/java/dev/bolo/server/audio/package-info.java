/** Streaming uploads: hash while reading, spool, size limit, the length measured by bolo-audio. */
@NullMarked
package dev.bolo.server.audio;

import org.jspecify.annotations.NullMarked;
