package dev.bolo.server.http;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.bolo.server.ledger.Tokens;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import io.javalin.http.Context;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many wrong bearer tokens (a device's or the admin's, counted together) one client may send:
 * {@code perMinute} a minute from each client address. Once an address has spent them, every
 * further token it sends is answered 429 {@code rate_limited} with {@code Retry-After} (the start
 * of its next minute) before anyone looks it up, so guessing costs a minute per {@code perMinute}
 * guesses and a guess costs the ledger nothing. A device token that was right from that same
 * address passes all the same: a device behind the same NAT or proxy as someone guessing keeps
 * working, while the guesser, who cannot know such a token, learns nothing from a 429. (The admin
 * token gets no such pass: there is one, and a pass would answer the guess.) A request without a
 * token is not a guess and is not counted.
 *
 * <p>The client is the socket's remote address, never a header ({@code X-Forwarded-For} is whatever
 * the client writes); an IPv6 client counts by its /64, the block one host is commonly given whole.
 * Memory is bounded whatever the number of addresses: at most {@link #MAX_ADDRESSES} budgets (only
 * addresses that sent a wrong token within the last minute have one; the least used go first) and
 * {@link #MAX_RIGHT_TOKENS} remembered right tokens, kept as hashes. Thread safe.
 */
public final class WrongTokens {

  private static final Logger log = LoggerFactory.getLogger(WrongTokens.class);

  /**
   * Addresses with a budget in use at once. A budget forgotten early is full again, so beyond this
   * many guessing addresses a rarely seen one may guess a little more. About 450 bytes each: 7.4 MB
   * of heap when full (measured with 16,384 addresses).
   */
  static final int MAX_ADDRESSES = 16_384;

  /**
   * Pairs of an address and a device token that was right from it, enough for a fleet's every
   * device; about 200 bytes each, 3.2 MB when full (measured).
   */
  static final int MAX_RIGHT_TOKENS = 16_384;

  /** A token right from an address passes there until it goes unused there this long. */
  private static final Duration RIGHT_TOKEN_KEPT = Duration.ofDays(1);

  /** The budget's period: {@code perMinute} wrong tokens, all of them back each minute. */
  private static final Duration PERIOD = Duration.ofMinutes(1);

  /** The bytes of an IPv6 address that name its /64. */
  private static final int IPV6_PREFIX_BYTES = 8;

  private final RateLimiterConfig budget;
  private final LongSupplier ticker;
  private final Cache<InetAddress, AtomicRateLimiter> budgets;
  private final Cache<String, Boolean> rightTokens;

  private WrongTokens(int perMinute, LongSupplier ticker) {
    this.budget =
        RateLimiterConfig.custom()
            .limitForPeriod(perMinute)
            .limitRefreshPeriod(PERIOD)
            .timeoutDuration(Duration.ZERO)
            .build();
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    // A budget idle for a whole period is full again: forgetting it then changes nothing.
    this.budgets =
        Caffeine.newBuilder()
            .maximumSize(MAX_ADDRESSES)
            .expireAfterAccess(PERIOD)
            .ticker(ticker::getAsLong)
            .build();
    this.rightTokens =
        Caffeine.newBuilder()
            .maximumSize(MAX_RIGHT_TOKENS)
            .expireAfterAccess(RIGHT_TOKEN_KEPT)
            .ticker(ticker::getAsLong)
            .build();
  }

  /**
   * {@code perMinute} wrong tokens a minute from each client address.
   *
   * @param perMinute at least 1
   * @param ticker elapsed nanoseconds
   */
  public static WrongTokens perMinute(int perMinute, LongSupplier ticker) {
    if (perMinute < 1) {
      throw new IllegalArgumentException("perMinute must be >= 1: " + perMinute);
    }
    return new WrongTokens(perMinute, ticker);
  }

  /**
   * Zero when {@code client} may present {@code token} now; else how long until its budget of wrong
   * tokens is back. Counts nothing.
   */
  Duration waitBefore(InetAddress client, String token) {
    AtomicRateLimiter spent = budgets.getIfPresent(group(client));
    if (spent == null) {
      return Duration.ZERO;
    }
    long nanos = spent.getDetailedMetrics().getNanosToWait();
    // A budget left, or the token is one this address has used rightly: let the ledger answer.
    if (nanos <= 0 || rightTokens.getIfPresent(pair(client, token)) != null) {
      return Duration.ZERO;
    }
    return Duration.ofNanos(nanos);
  }

  /** Counts one token from {@code client} that nobody owns (or not the admin token). */
  void count(InetAddress client) {
    InetAddress group = group(client);
    AtomicRateLimiter budget = budgets.get(group, address -> limiter());
    // Its minute's last: said once, for an operator watching for guessing (never the token).
    if (budget.acquirePermission() && budget.getMetrics().getAvailablePermissions() == 0) {
      log.warn(
          "{} sent {} wrong tokens within a minute: its tokens wait for its next minute",
          group.getHostAddress(),
          budget.getRateLimiterConfig().getLimitForPeriod());
    }
  }

  /** Remembers that the device token {@code token} was right from {@code client}. */
  void right(InetAddress client, String token) {
    rightTokens.put(pair(client, token), Boolean.TRUE);
  }

  /** Client addresses (IPv6: /64s) with a budget in memory now, for tests. */
  long addressesKept() {
    budgets.cleanUp();
    return budgets.estimatedSize();
  }

  /**
   * The address at the other end of the request's connection: the socket's, which a client cannot
   * choose the way it chooses its headers.
   */
  static InetAddress clientOf(Context ctx) {
    ServletContextRequest request = ServletContextRequest.getServletContextRequest(ctx.req());
    if (request != null
        && request.getConnectionMetaData().getRemoteSocketAddress()
            instanceof InetSocketAddress socket
        && socket.getAddress() != null) {
      return socket.getAddress();
    }
    // Not over a socket (a request made inside the process): one shared, unknown client.
    return InetAddress.getLoopbackAddress();
  }

  private AtomicRateLimiter limiter() {
    return new AtomicRateLimiter("wrong-tokens", budget, Map.of(), ticker::getAsLong);
  }

  /** The address a budget is kept for: the address itself, or an IPv6 address's /64. */
  private static InetAddress group(InetAddress client) {
    byte[] bytes = client.getAddress();
    if (bytes.length <= 4) {
      return client;
    }
    Arrays.fill(bytes, IPV6_PREFIX_BYTES, bytes.length, (byte) 0);
    try {
      return InetAddress.getByAddress(bytes);
    } catch (UnknownHostException e) {
      throw new IllegalStateException("an address of 16 bytes is an IPv6 address", e);
    }
  }

  private static String pair(InetAddress client, String token) {
    return group(client).getHostAddress() + " " + Tokens.hash(token);
  }
}
