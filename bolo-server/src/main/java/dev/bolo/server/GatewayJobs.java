package dev.bolo.server;

import dev.bolo.server.config.ServerConfig;
import dev.bolo.server.http.JobJson;
import dev.bolo.server.ledger.DurableLedger;
import dev.bolo.server.ledger.JobStore;
import dev.bolo.server.time.Sleeper;
import dev.bolo.server.transcription.Jobs;
import dev.bolo.server.transcription.Transcriber;
import dev.bolo.server.webhook.WebhookSender;
import dev.bolo.server.webhook.WebhookUrlPolicy;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.List;

/** The composition root's part that makes the gateway's jobs (PROTOCOL v4). */
final class GatewayJobs {

  /**
   * Until the webhook package's policy, sender and secrets are handed in ({@link
   * AppBuilder#webhooks}): every {@code webhook_url} is refused when its job is made, so no event
   * is ever due.
   */
  static final Jobs.Webhooks NO_WEBHOOKS =
      new Jobs.Webhooks(
          url -> {
            throw new WebhookUrlPolicy.RefusedWebhookUrl("this gateway sends no webhooks");
          },
          (url, message) ->
              new WebhookSender.Delivery(
                  WebhookSender.Outcome.BLOCKED, 0, "this gateway sends no webhooks"),
          device -> List.of());

  /** How many jobs one instance transcribes at once; the engine's own bounds apply as well. */
  private static final int JOBS_AT_ONCE = 4;

  private GatewayJobs() {}

  /**
   * Jobs run through {@code transcriber}, on {@code ledger}'s tables; their notes are read back
   * into the slot's own spool, which a start empties.
   */
  static Jobs open(
      ServerConfig gateway,
      Jobs.Webhooks webhooks,
      DurableLedger ledger,
      Transcriber transcriber,
      InstanceSlot slot,
      Clock clock,
      Sleeper sleeper,
      MeterRegistry metrics) {
    ServerConfig.Jobs config = gateway.jobs();
    return Jobs.open(
        ledger,
        transcriber,
        webhooks,
        new JobJson(),
        new Jobs.Config(
            new JobStore.Bounds(config.maxQueuedPerDevice(), config.maxQueuedBytesPerDevice()),
            config.retention(),
            JOBS_AT_ONCE),
        clock,
        sleeper,
        slot.id(),
        slot.spoolDir(),
        metrics);
  }
}
