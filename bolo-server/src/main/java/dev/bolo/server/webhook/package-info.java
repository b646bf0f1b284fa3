/**
 * Webhooks as the Standard Webhooks specification defines them: the address policy a {@code
 * webhook_url} must pass when a job is created, the device's signing secrets, and the sender that
 * posts one signed event to a receiver. The jobs' durable outbox decides when to send; this package
 * decides how, and whether an address may be called at all.
 */
@NullMarked
package dev.bolo.server.webhook;

import org.jspecify.annotations.NullMarked;
