/**
 * HTTPS on the gateway's own port, so that a phone's browser lets the dictation page use the
 * microphone: a certificate authority of the gateway's own and the server certificate it issues for
 * the machine's LAN addresses (kept in the data directory), or an operator's certificate from PEM
 * files; the Jetty connector that speaks TLS (and plain HTTP, for loopback, on the same port); and
 * the addresses a phone opens the page at.
 */
@NullMarked
package dev.bolo.server.tls;

import org.jspecify.annotations.NullMarked;
