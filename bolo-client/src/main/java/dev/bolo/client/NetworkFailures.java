package dev.bolo.client;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ProtocolException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.security.cert.CertificateException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * Names what went wrong below HTTP when a call failed: which {@link Failure.NetworkKind} it was,
 * and whether it was the app stopping its own HTTP work rather than the network. Stateless.
 */
final class NetworkFailures {

  private NetworkFailures() {}

  /** What kind of network failure {@code e} is; the order matters (subclasses first). */
  static Failure.Network classify(IOException e) {
    String detail = describe(e);
    Failure.NetworkKind kind;
    if (e instanceof UnknownHostException) {
      kind = Failure.NetworkKind.UNKNOWN_HOST;
    } else if (e instanceof SocketTimeoutException
        || (e instanceof InterruptedIOException && "timeout".equals(e.getMessage()))) {
      // OkHttp reports a call or write timeout as InterruptedIOException("timeout").
      kind = Failure.NetworkKind.TIMEOUT;
    } else if (e instanceof SSLPeerUnverifiedException
        || (e instanceof SSLHandshakeException && e.getCause() instanceof CertificateException)) {
      kind = Failure.NetworkKind.TLS;
    } else if (e instanceof ProtocolException) {
      kind = Failure.NetworkKind.PROTOCOL;
    } else {
      // Refused, reset, broken pipe, unexpected end of stream, no route: the network, not the note.
      kind = Failure.NetworkKind.CONNECTION;
    }
    return new Failure.Network(kind, detail);
  }

  /**
   * An interrupt that is not a timeout: OkHttp's executor was shut down ("executor rejected") or
   * its thread interrupted. Either way the app is stopping its own HTTP work.
   */
  static boolean isInterruption(IOException e) {
    return e instanceof InterruptedIOException
        && !(e instanceof SocketTimeoutException)
        && !"timeout".equals(e.getMessage());
  }

  /** Whether a failed call broke the link mid-way, so that the gateway may hold part of it. */
  static boolean isBrokenLink(Failure failure) {
    return failure instanceof Failure.Network network
        && (network.kind() == Failure.NetworkKind.CONNECTION
            || network.kind() == Failure.NetworkKind.TIMEOUT);
  }

  /** The exception's type and message, as a failure's detail. */
  static String describe(Exception e) {
    return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
  }
}
