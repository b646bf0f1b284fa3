package dev.bolo.server.ledger;

/** The ledger's database failed or is unreachable: broken infrastructure, not an outcome. */
public final class LedgerException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public LedgerException(String message, Throwable cause) {
    super(message, cause);
  }
}
