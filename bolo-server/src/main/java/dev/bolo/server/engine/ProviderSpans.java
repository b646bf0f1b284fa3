package dev.bolo.server.engine;

import static io.opentelemetry.semconv.ErrorAttributes.ERROR_TYPE;
import static io.opentelemetry.semconv.HttpAttributes.HTTP_REQUEST_METHOD;
import static io.opentelemetry.semconv.HttpAttributes.HTTP_RESPONSE_STATUS_CODE;
import static io.opentelemetry.semconv.ServerAttributes.SERVER_ADDRESS;
import static io.opentelemetry.semconv.ServerAttributes.SERVER_PORT;
import static io.opentelemetry.semconv.UrlAttributes.URL_FULL;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.io.IOException;
import java.util.Objects;
import okhttp3.HttpUrl;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;

/**
 * One HTTP client span per provider call, by OpenTelemetry's semantic conventions for HTTP clients
 * ({@code http.request.method}, {@code server.address}, {@code server.port}, {@code url.full}
 * without its query, {@code http.response.status_code}), a child of the engine attempt that makes
 * it; the call carries the trace on to the provider in W3C {@code traceparent} and {@code
 * tracestate} headers. The query is left out because a provider's key may ride in it (Gemini's
 * {@code ?key=}), and no header or body goes on the span. An OkHttp interceptor on the providers'
 * one client; the composition root adds it only when traces are on. The span ends when the answer's
 * headers arrive. A call within a trace that is not sampled makes no span: it carries the request's
 * span on, flagged unsampled ({@link TracedEngine#unsampled}). A call made off the note's thread
 * names the note's context as its {@link Context} tag. Thread safe.
 */
public final class ProviderSpans implements Interceptor {

  private static final TextMapSetter<Request.Builder> HEADERS =
      (builder, name, value) -> {
        if (builder != null) {
          builder.header(name, value);
        }
      };

  private final Tracer tracer;
  private final TextMapPropagator propagator;

  /** Spans made by {@code tracer}, their context sent on by {@code propagator}. */
  public ProviderSpans(Tracer tracer, TextMapPropagator propagator) {
    this.tracer = Objects.requireNonNull(tracer, "tracer");
    this.propagator = Objects.requireNonNull(propagator, "propagator");
  }

  @Override
  public Response intercept(Chain chain) throws IOException {
    Request request = chain.request();
    // A call sent from OkHttp's own threads (a Gemini file's deletion) names its note's context.
    @Nullable Context tagged = request.tag(Context.class);
    Context parent = tagged != null ? tagged : Context.current();
    if (TracedEngine.unsampled(Span.fromContext(parent))) {
      // No span for a call no one records: the request's trace goes on to the provider, unsampled.
      return chain.proceed(propagated(request, parent));
    }
    HttpUrl url = request.url();
    Span span =
        tracer
            .spanBuilder(request.method())
            .setParent(parent)
            .setSpanKind(SpanKind.CLIENT)
            .setAttribute(HTTP_REQUEST_METHOD, request.method())
            .setAttribute(SERVER_ADDRESS, url.host())
            .setAttribute(SERVER_PORT, (long) url.port())
            .setAttribute(URL_FULL, fullUrl(url))
            .startSpan();
    Context within = parent.with(span);
    try (Scope scope = within.makeCurrent()) {
      Response response = chain.proceed(propagated(request, within));
      span.setAttribute(HTTP_RESPONSE_STATUS_CODE, (long) response.code());
      if (response.code() >= 400) {
        span.setAttribute(ERROR_TYPE, Integer.toString(response.code()));
        span.setStatus(StatusCode.ERROR);
      }
      return response;
    } catch (IOException | RuntimeException e) {
      // The failure's type, not its message, which may quote the address or what was read.
      span.setAttribute(ERROR_TYPE, e.getClass().getName());
      span.setStatus(StatusCode.ERROR);
      throw e;
    } finally {
      span.end();
    }
  }

  /** {@code request} with {@code context}'s {@code traceparent} (and {@code tracestate}). */
  private Request propagated(Request request, Context context) {
    Request.Builder traced = request.newBuilder();
    propagator.inject(context, traced, HEADERS);
    return traced.build();
  }

  /**
   * {@code url} as the span names it: without credentials, which an engine's base URL may carry and
   * the conventions ask removed, and without its query. A provider's URL seldom has either, and is
   * then named as it is, without building another.
   */
  static String fullUrl(HttpUrl url) {
    if (url.encodedUsername().isEmpty()
        && url.encodedPassword().isEmpty()
        && url.encodedQuery() == null) {
      return url.toString();
    }
    return url.newBuilder().username("").password("").query(null).build().toString();
  }
}
