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
            sendable.put(lower, value);
          }
        });
    return sendable;
  }
}
