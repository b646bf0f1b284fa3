package dev.bolo.cli;

import dev.bolo.client.Failure;
import java.io.PrintWriter;

/**
 * The one line that says nothing listens at the gateway's address and where that address came from,
 * printed on the first failed connection of a run however many notes fail the same way; the resends
 * go on as the policy says. Thread safe: every note's listener shares one, and it prints under the
 * lock of {@code err}, as {@link ProgressPrinter} does.
 */
final class NoGatewayHint {

  private final GatewayAddress address;
  private final PrintWriter err;
  private final int maxAttempts;

  /** Guarded by {@code err}, which every line of the run is printed under. */
  private boolean shown;

  NoGatewayHint(GatewayAddress address, PrintWriter err, int maxAttempts) {
    this.address = address;
    this.err = err;
    this.maxAttempts = maxAttempts;
  }

  /** Tells the hint of one attempt's failure; it speaks once, for the first failed connection. */
  void failed(Failure failure) {
    if (!FailureText.isNothingListening(failure)) {
      return;
    }
    // Decided and printed under the lock the notes' lines are printed under: whichever note
    // fails first prints the hint, and no note's resend line can come before it.
    synchronized (err) {
      if (shown) {
        return;
      }
      shown = true;
      err.println(line());
      err.flush();
    }
  }

  /** The hint. */
  String line() {
    String from =
        address.source().equals(GatewayAddress.FROM_DEFAULT)
            ? "the default address; --server, BOLO_SERVER or BOLO_HOST/BOLO_PORT name another"
            : "from " + address.source();
    return "bolo: nothing answers at "
        + address.url()
        + " ("
        + from
        + "): is `bolo serve` running? Trying up to "
        + maxAttempts
        + " times in all.";
  }
}
