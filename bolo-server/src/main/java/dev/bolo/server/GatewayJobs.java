package dev.bolo.server;

import dev.bolo.server.config.ServerConfig;
import dev.bolo.server.http.JobJson;
import dev.bolo.server.ledger.DurableLedger;
import dev.bolo.server.ledger.JobStore;
import dev.bolo.server.time.Sleeper;
import dev.bolo.server.tracing.JobSpans;
import dev.bolo.server.tracing.Tracing;
import dev.bolo.server.transcription.Jobs;
import dev.bolo.server.transcription.Transcriber;
import dev.bolo.server.webhook.HostResolver;
import dev.bolo.server.webhook.WebhookCalls;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import org.jspecify.annotations.Nullable;

/** The composition root's part that makes the gateway's jobs (PROTOCOL v4). */
final class GatewayJobs {

  /**
   * The webhook package's address policy and sender, both allowing the operator's {@code
   * BOLO_WEBHOOK_HTTP_HOSTS}, and the devices' signing secrets in {@code ledger}.
   *
   * @param resolver how receivers' names are resolved
   */
  static Jobs.Webhooks webhooks(ServerConfig config, DurableLedger ledger, HostResolver resolver) {
    return new Jobs.Webhooks(
        WebhookCalls.policy(config.webhookHttpHosts(), resolver),
        WebhookCalls.sender(config.webhookHttpHosts(), resolver, WebhookCalls.TIMEOUT),
        ledger::webhookSecrets);
  }

  /** How many jobs one instance transcribes at once; the engine's own bounds apply as well. */
  private static final int JOBS_AT_ONCE = 4;

  private GatewayJobs() {}

  /**
   * Jobs run through {@code transcriber}, on {@code ledger}'s tables; their notes are read back
   * into the slot's own spool, which a start empties.
   *
   * @param given a test's webhook side ({@link AppBuilder#webhooks}), or null for the gateway's own
   * @param tracing the traces jobs' runs and webhook deliveries are spans of
   */
  static Jobs open(
      ServerConfig gateway,
      Jobs.@Nullable Webhooks given,
      DurableLedger ledger,
      Transcriber transcriber,
      InstanceSlot slot,
      Clock clock,
      Sleeper sleeper,
      MeterRegistry metrics,
      Tracing tracing) {
    ServerConfig.Jobs config = gateway.jobs();
    return Jobs.open(
        ledger,
        transcriber,
        given != null ? given : webhooks(gateway, ledger, HostResolver.system()),
        new JobJson(),
        new Jobs.Config(
            new JobStore.Bounds(config.maxQueuedPerDevice(), config.maxQueuedBytesPerDevice()),
            config.retention(),
            JOBS_AT_ONCE),
        clock,
        sleeper,
        slot.id(),
        slot.spoolDir(),
        metrics,
        new JobSpans(tracing));
  }
}
