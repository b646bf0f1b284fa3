/** The {@code ./bolo} command line: serve, transcribe, devices, usage, demo. */
@NullMarked
package dev.bolo.cli;

import org.jspecify.annotations.NullMarked;
