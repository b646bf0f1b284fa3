package dev.bolo.server.webhook;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Posts one signed event to a receiver, once. Retrying is the caller's (the outbox's) business:
 * every attempt of one event carries the same {@link Message#id()}. Implementations are thread safe
 * and never throw for anything the receiver or the network does; they answer with a {@link
 * Delivery} instead.
 *
 * <p>The gateway's is {@link WebhookCalls#sender}: it resolves the host once per attempt, checks
 * the addresses as the policy does and connects only to them, never follows a redirect, and gives
 * up after {@link WebhookCalls#TIMEOUT}.
 */
@FunctionalInterface
public interface WebhookSender {

  /**
   * Signs {@code message} with each of its secrets and posts it to {@code url}.
   *
   * @param url the job's {@code webhook_url}, checked by {@link WebhookUrlPolicy} when the job was
   *     made; checked again here, since a name may resolve elsewhere by now
   */
  Delivery send(String url, Message message);

  /**
   * One event as the receiver gets it.
   *
   * @param id the {@code webhook-id}: the same on every attempt of this event
   * @param timestamp the {@code webhook-timestamp} of this attempt
   * @param body the JSON body, exactly the bytes that are signed and sent
   * @param secrets the device's {@code whsec_…} secrets, newest first; each signs the message
   * @param traceHeaders the W3C trace context ({@code traceparent}, {@code tracestate}) of this
   *     attempt's span, sent so that the receiver can go on with the trace; empty when untraced
   */
  record Message(
      String id,
      Instant timestamp,
      byte[] body,
      List<String> secrets,
      Map<String, String> traceHeaders) {
    public Message {
      secrets = List.copyOf(secrets);
      traceHeaders = Map.copyOf(traceHeaders);
      if (secrets.isEmpty()) {
        throw new IllegalArgumentException("a webhook is signed with at least one secret");
      }
    }

    /** An untraced message. */
    public Message(String id, Instant timestamp, byte[] body, List<String> secrets) {
      this(id, timestamp, body, secrets, Map.of());
    }
  }

  /** What became of one attempt. */
  enum Outcome {
    /** The receiver answered 2xx: no more attempts. */
    DELIVERED,
    /** The receiver answered, but not 2xx: try again later. */
    REJECTED,
    /** No answer: refused connection, timeout, TLS failure, cut body. Try again later. */
    UNREACHABLE,
    /** The address is not one the gateway may call (any more): no more attempts. */
    BLOCKED
  }

  /**
   * @param outcome what happened
   * @param status the receiver's HTTP status, 0 when there was none
   * @param detail the gateway's own sentence for the operator (never the receiver's body)
   */
  record Delivery(Outcome outcome, int status, String detail) {}
}
