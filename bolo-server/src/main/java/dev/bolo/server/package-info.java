/** The Bolo gateway's composition root and lifecycle: Main, AppBuilder, App. */
@NullMarked
package dev.bolo.server;

import org.jspecify.annotations.NullMarked;
