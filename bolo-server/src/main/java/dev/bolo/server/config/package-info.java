/**
 * The gateway's configuration: {@link dev.bolo.server.config.Variable}, the one list of {@code
 * BOLO_*} variables (each with its parser, default and help line), read into the immutable {@link
 * dev.bolo.server.config.ServerConfig}.
 */
@NullMarked
package dev.bolo.server.config;

import org.jspecify.annotations.NullMarked;
