/** The {@code ./bolo} command line: picocli commands. */
@NullMarked
package dev.bolo.cli;

import org.jspecify.annotations.NullMarked;
