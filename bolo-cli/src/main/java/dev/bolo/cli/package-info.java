/** The {@code ./bolo} command line: picocli commands over the server and the client SDK. */
@NullMarked
package dev.bolo.cli;

import org.jspecify.annotations.NullMarked;
