package dev.bolo.server.ledger;

/**
 * The gateway's configuration contradicts what the ledger holds; the one-line message names the
 * variable and the fix. Starting anyway would be unsafe, so the gateway does not start.
 */
public final class LedgerConfigException extends IllegalStateException {

  private static final long serialVersionUID = 1L;

  public LedgerConfigException(String message) {
    super(message);
  }
}
