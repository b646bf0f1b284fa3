/** HTTP routes and handlers, and the single place that maps outcomes to HTTP. */
@NullMarked
package dev.bolo.server.http;

import org.jspecify.annotations.NullMarked;
