/**
 * Traces: the OpenTelemetry SDK as its own {@code OTEL_*} variables configure it, off unless they
 * name somewhere to send spans ({@link Tracing}), and the note's spans carried with the work from
 * thread to thread ({@link NoteSpans}). See docs/operations/tracing.md.
 */
@NullMarked
package dev.bolo.server.tracing;

import org.jspecify.annotations.NullMarked;
