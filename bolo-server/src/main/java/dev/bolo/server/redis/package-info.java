/**
 * Where Redis is and how Bolo connects to it; shared by the de-duplication store and the
 * deployment-wide rate limit.
 */
@NullMarked
package dev.bolo.server.redis;

import org.jspecify.annotations.NullMarked;
