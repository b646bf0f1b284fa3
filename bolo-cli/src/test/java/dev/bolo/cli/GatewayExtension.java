package dev.bolo.cli;

import dev.bolo.client.BoloClient;
import dev.bolo.client.ResendPolicy;
import dev.bolo.client.Scheduler;
import dev.bolo.client.Timing;
import dev.bolo.server.testing.ScriptedGateway;
import java.time.Duration;
import java.util.Map;

/**
 * The gateway fixture of bolo-server's tests ({@link ScriptedGateway}: a real gateway on a scripted
 * fake provider) with the SDK's clients of it that the CLI's end-to-end tests use.
 */
final class GatewayExtension extends ScriptedGateway {

  /** A gateway on the fixture's variables alone. */
  GatewayExtension() {
    super();
  }

  /** A gateway on the fixture's variables and then {@code extra}. */
  GatewayExtension(Map<String, String> extra) {
    super(extra);
  }

  /** The system's timing, but each resend starts at once: the policy's attempts, not its pauses. */
  static Timing resendAtOnce() {
    return Timing.builder().scheduler(GatewayExtension::runAtOnce).build();
  }

  /** A client of this gateway with exact pauses that take no time. */
  BoloClient.Builder client() {
    return BoloClient.builder()
        .baseUrl(baseUrl())
        .token(TOKEN)
        .policy(ResendPolicy.standard().withoutJitter())
        // The pauses are the policy's business, tested on a fake clock; here they only slow us.
        .timing(resendAtOnce());
  }

  /** A scheduler without pauses: the next attempt starts as soon as it is scheduled. */
  static Scheduler.Pending runAtOnce(Duration pause, Runnable next) {
    next.run();
    return () -> {};
  }
}
