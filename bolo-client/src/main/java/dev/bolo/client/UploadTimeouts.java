package dev.bolo.client;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;

/**
 * An application interceptor that gives each upload a read and write timeout that fits the note: 30
 * s plus half the note's duration (from {@code X-Bolo-Audio-Duration-Ms}), clamped to [30 s, 120
 * s]. The gateway answers only after the engine has heard the note, and a long note also takes
 * longer to send over a slow uplink. A missing or invalid header gives the base of 30 s. A call
 * tagged {@link Fixed} (the app's per-call timeout) uses that instead.
 */
final class UploadTimeouts implements Interceptor {

  static final String DURATION_HEADER = "X-Bolo-Audio-Duration-Ms";

  /** A request tag that fixes the timeout for one call, whatever the note's length. */
  record Fixed(Duration timeout) {}

  private final Duration base;
  private final Duration min;
  private final Duration max;

  UploadTimeouts() {
    this(Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofSeconds(120));
  }

  /** Other bounds, so tests can see timeouts without waiting 30 s. */
  UploadTimeouts(Duration base, Duration min, Duration max) {
    if (min.compareTo(max) > 0 || base.isNegative()) {
      throw new IllegalArgumentException(
          "need 0 <= base and min <= max: base=" + base + " min=" + min + " max=" + max);
    }
    this.base = base;
    this.min = min;
    this.max = max;
  }

  /** A note's read and write timeout: {@code fixed}, the app's, else the rule for its length. */
  Duration timeoutOf(VoiceNote note, @Nullable Duration fixed) {
    if (fixed != null) {
      return fixed;
    }
    return timeoutFor(
        note.durationMs().isPresent() ? Long.toString(note.durationMs().getAsLong()) : null);
  }

  /** The timeout for a note whose duration header is {@code durationHeader}. */
  Duration timeoutFor(@Nullable String durationHeader) {
    long durationMs = parseDurationMs(durationHeader);
    if (durationMs < 0) {
      return clamp(base);
    }
    // Saturate rather than overflow: a note this long gets the maximum anyway.
    return clamp(durationMs / 2 > max.toMillis() ? max : base.plusMillis(durationMs / 2));
  }

  private Duration clamp(Duration timeout) {
    if (timeout.compareTo(min) < 0) {
      return min;
    }
    return timeout.compareTo(max) > 0 ? max : timeout;
  }

  @Override
  public Response intercept(Chain chain) throws IOException {
    Request request = chain.request();
    Fixed fixed = request.tag(Fixed.class);
    Duration timeout =
        fixed != null ? fixed.timeout() : timeoutFor(request.header(DURATION_HEADER));
    int millis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
    return chain
        .withReadTimeout(millis, TimeUnit.MILLISECONDS)
        .withWriteTimeout(millis, TimeUnit.MILLISECONDS)
        .proceed(request);
  }

  /** The header's milliseconds, or -1 when it is missing or not a non-negative integer. */
  private static long parseDurationMs(@Nullable String header) {
    if (header == null || header.isEmpty() || header.length() > 18) {
      return -1;
    }
    for (int i = 0; i < header.length(); i++) {
      char c = header.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
    }
    return Long.parseLong(header);
  }
}
