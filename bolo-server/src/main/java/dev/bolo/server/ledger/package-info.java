/** Devices, tokens, quota and usage. */
@NullMarked
package dev.bolo.server.ledger;

import org.jspecify.annotations.NullMarked;
