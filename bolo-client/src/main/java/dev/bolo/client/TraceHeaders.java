package dev.bolo.client;

import java.util.Map;

/**
 * The app's current trace, as the W3C Trace Context headers that carry it: {@code traceparent} and,
 * when there is one, {@code tracestate}. Given to {@link BoloClient.Builder#traceHeaders}, it is
 * asked once for each note or job call, on the thread that hands it to the client, and its headers
 * go with every attempt of that call (resends, lookups and resumed uploads included), so the
 * gateway's spans of the note are children of the app's span. Names other than those two are not
 * sent; an empty map, or a supplier that throws, sends none.
 *
 * <p>With OpenTelemetry (the SDK does not depend on it), the headers of the current context:
 *
 * <pre>{@code
 * BoloClient client = BoloClient.builder()
 *     .baseUrl("https://bolo.example.com")
 *     .token(token)
 *     .traceHeaders(() -> {
 *       Map<String, String> headers = new HashMap<>();
 *       W3CTraceContextPropagator.getInstance()
 *           .inject(Context.current(), headers, (carrier, name, value) -> carrier.put(name, value));
 *       return headers;
 *     })
 *     .build();
 * }</pre>
 *
 * <p>Implementations must be thread safe: calls made at once from several threads each ask it.
 */
@FunctionalInterface
public interface TraceHeaders {

  /** The headers of the trace current on the calling thread; empty when there is none. */
  Map<String, String> current();

  /** No trace: nothing is sent (the default). */
  static TraceHeaders none() {
    return Map::of;
  }
}
