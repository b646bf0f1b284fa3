/** Whether a part of the gateway is usable now: the one value every part reports to readiness. */
@NullMarked
package dev.bolo.server.health;

import org.jspecify.annotations.NullMarked;
