package dev.bolo.client;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import okhttp3.OkHttpClient;
import okhttp3.Request;

/**
 * The app's trace on a call's requests: the {@link TraceHeaders} asked once, on the thread that
 * hands the call over, and their {@code traceparent} and {@code tracestate} added to every request
 * of the call by an interceptor of a client derived for it ({@link OkHttpClient#newBuilder()},
 * which shares the connection pool and dispatcher). Stateless.
 */
final class TracedCalls {

  /**
   * The longest trace header sent: W3C Trace Context asks that 512 characters of a {@code
   * tracestate} be passed on; a longer one (OpenTelemetry allows 32 members of 256 characters) is
   * cut to its leading members, entries of over 128 characters first, as the recommendation says,
   * so that the app's trace never takes the gateway's 8 KiB of request headers.
   */
  static final int MAX_TRACE_HEADER = 512;

  private static final int LARGE_MEMBER = 128;

  private TracedCalls() {}

  /** {@code http}, adding the app's current trace headers to each request; itself when none. */
  static OkHttpClient carrying(OkHttpClient http, TraceHeaders trace) {
    Map<String, String> headers = sendable(trace);
    if (headers.isEmpty()) {
      return http;
    }
    return http.newBuilder()
        .addInterceptor(
            chain -> {
              Request.Builder traced = chain.request().newBuilder();
              headers.forEach(traced::header);
              return chain.proceed(traced.build());
            })
        .build();
  }

  /** The W3C Trace Context headers among those {@code trace} gives, with visible ASCII values. */
  static Map<String, String> sendable(TraceHeaders trace) {
    Map<String, String> given;
    try {
      given = trace.current();
    } catch (RuntimeException e) {
      // The app's trace is a help for its operator: it never costs the note.
      return Map.of();
    }
    Map<String, String> sendable = new TreeMap<>();
    if (given == null) {
      return sendable;
    }
    given.forEach(
        (name, value) -> {
          String lower = name == null ? "" : name.toLowerCase(Locale.ROOT);
          if ((lower.equals("traceparent") || lower.equals("tracestate"))
              && value != null
              && !value.isEmpty()
              && value.chars().allMatch(c -> c >= ' ' && c < 0x7f)) {
            String bounded = lower.equals("tracestate") ? cut(value) : value;
            if (!bounded.isEmpty() && bounded.length() <= MAX_TRACE_HEADER) {
              sendable.put(lower, bounded);
            }
          }
        });
    return sendable;
  }

  /** {@code tracestate}'s leading members within {@link #MAX_TRACE_HEADER}, large ones left out. */
  private static String cut(String tracestate) {
    if (tracestate.length() <= MAX_TRACE_HEADER) {
      return tracestate;
    }
    StringBuilder kept = new StringBuilder();
    for (String member : tracestate.split(",")) {
      String trimmed = member.strip();
      if (trimmed.isEmpty() || trimmed.length() > LARGE_MEMBER) {
        continue;
      }
      if (kept.length() + trimmed.length() + 1 > MAX_TRACE_HEADER) {
        break;
      }
      kept.append(kept.length() == 0 ? "" : ",").append(trimmed);
    }
    return kept.toString();
  }
}
