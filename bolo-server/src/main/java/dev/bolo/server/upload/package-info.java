/** Streaming uploads: hash while reading, spool, size limit, the length measured by bolo-audio. */
@NullMarked
package dev.bolo.server.upload;

import org.jspecify.annotations.NullMarked;
