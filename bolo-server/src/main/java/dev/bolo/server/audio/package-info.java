/** Streaming uploads: hash while reading, spool, size limit, container sniffing, duration. */
@NullMarked
package dev.bolo.server.audio;

import org.jspecify.annotations.NullMarked;
