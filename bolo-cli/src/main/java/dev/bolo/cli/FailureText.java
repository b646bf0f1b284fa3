package dev.bolo.cli;

import dev.bolo.client.Failure;
import dev.bolo.server.engine.ClientText;

/**
 * How the command line words an attempt's failure: the gateway's own message always follows its
 * status and code ({@code HTTP 503 upstream_unavailable: the transcription provider cannot be
 * reached}), on one line of printable text. Stateless.
 */
final class FailureText {

  /** A message longer than this (a proxy's page, say) is cut: the line must stay readable. */
  private static final int MAX_MESSAGE_CHARS = 300;

  private FailureText() {}

  /** The failure on one line, with the gateway's message when it sent one. */
  static String of(Failure failure) {
    return switch (failure) {
      case Failure.Http http -> withMessage(http);
      case Failure.Network network -> network.reason();
    };
  }

  /**
   * Whether the connection itself could not be made: refused or unroutable, so nothing listens at
   * the gateway's address. The SDK names the exception first in the detail ({@code
   * ConnectException: Failed to connect to /127.0.0.1:8080}); a link that broke later, once
   * connected, is a gateway that was there.
   */
  static boolean isNothingListening(Failure failure) {
    return failure instanceof Failure.Network network
        && network.kind() == Failure.NetworkKind.CONNECTION
        && (network.detail().startsWith("ConnectException")
            || network.detail().startsWith("NoRouteToHostException"));
  }

  private static String withMessage(Failure.Http http) {
    // One line of printable text whatever the server sent: no control bytes or escape sequences
    // reach the terminal, from a gateway with a fault or anything posing as one.
    String message = ClientText.shown(http.message(), MAX_MESSAGE_CHARS);
    // Without a JSON body the SDK's message is the status line itself ("HTTP 502 Bad Gateway").
    if (message.isEmpty() || message.startsWith("HTTP " + http.status())) {
      return message.isEmpty() ? http.reason() : message;
    }
    return http.reason() + ": " + message;
  }
}
