/** The Bolo gateway: configuration and the composition root. */
@NullMarked
package dev.bolo.server;

import org.jspecify.annotations.NullMarked;
