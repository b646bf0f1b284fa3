/**
 * Several engines behind one gateway: routes from the model a client asks for to ordered targets
 * ({@code engine/model}), each with its circuit breaker (resilience4j), its calls in flight and its
 * calls per minute; a note fails over to the next target when one is down, full or refusing calls,
 * within the note's deadline (PROTOCOL.md, "Several engines").
 */
@NullMarked
package dev.bolo.server.engine.route;

import org.jspecify.annotations.NullMarked;
