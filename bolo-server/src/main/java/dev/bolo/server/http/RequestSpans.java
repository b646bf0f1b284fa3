package dev.bolo.server.http;

import static io.opentelemetry.semconv.ErrorAttributes.ERROR_TYPE;
import static io.opentelemetry.semconv.HttpAttributes.HTTP_REQUEST_METHOD;
import static io.opentelemetry.semconv.HttpAttributes.HTTP_RESPONSE_STATUS_CODE;
import static io.opentelemetry.semconv.HttpAttributes.HTTP_ROUTE;
import static io.opentelemetry.semconv.UrlAttributes.URL_PATH;
import static io.opentelemetry.semconv.UrlAttributes.URL_SCHEME;

import dev.bolo.server.tracing.NoteSpans;
import dev.bolo.server.tracing.Tracing;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import jakarta.servlet.http.HttpServletRequest;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.jspecify.annotations.Nullable;

/**
 * One HTTP server span per request, named and attributed by OpenTelemetry's semantic conventions
 * for HTTP ({@code http.request.method}, {@code url.path}, {@code http.route}, {@code
 * http.response.status_code}), a child of the client's trace when it sent a W3C {@code
 * traceparent}. It wraps the whole server beside {@link RequestMetrics}, so a request turned away
 * before any handler is traced like a transcript, and the span ends when the answer does, on
 * whichever thread writes it. The composition root installs it only when traces are on. Thread
 * safe.
 *
 * <p>{@link RequestLog} names the route and makes the span current for the handlers ({@link
 * #enter}). No query string, header or body goes on the span: a device route's path is its template
 * ({@code /v1/uploads/{id}}), never the path asked.
 */
public final class RequestSpans extends Handler.Wrapper {

  /** The request attribute holding this request's {@link Traced}. */
  private static final String TRACED = RequestSpans.class.getName() + ".traced";

  /** Reads a propagated context's headers ({@code traceparent}, {@code tracestate}) from Jetty. */
  private static final TextMapGetter<Request> HEADERS =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Request request) {
          return request.getHeaders().stream().map(HttpField::getName).toList();
        }

        @Override
        public @Nullable String get(@Nullable Request request, String name) {
          return request == null ? null : request.getHeaders().get(name);
        }
      };

  private final Tracer tracer;
  private final TextMapPropagator propagator;

  /** Spans made by {@code tracing}'s tracer, their parents read with its propagator. */
  public RequestSpans(Tracing tracing) {
    this.tracer = tracing.tracer();
    this.propagator = tracing.propagator();
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    // Only the client's span is taken from what it propagates: its baggage (an app's user, say) is
    // no provider's or receiver's business, and would otherwise go on with every provider call.
    Context parent =
        Context.root().with(Span.fromContext(propagator.extract(Context.root(), request, HEADERS)));
    String method = request.getMethod();
    Span span =
        tracer
            .spanBuilder(method)
            .setParent(parent)
            .setSpanKind(SpanKind.SERVER)
            .setAttribute(HTTP_REQUEST_METHOD, method)
            .setAttribute(URL_SCHEME, request.getHttpURI().getScheme())
            .startSpan();
    Traced traced =
        new Traced(span, NoteSpans.carry(parent.with(span), tracer), method, pathOf(request));
    request.setAttribute(TRACED, traced);
    Callback ended =
        new Callback.Nested(callback) {
          @Override
          public void succeeded() {
            traced.end(response.getStatus(), null);
            // Current while the answer is counted: its latency's exemplar names this trace.
            try (Scope scope = traced.context.makeCurrent()) {
              super.succeeded();
            }
          }

          @Override
          public void failed(Throwable failure) {
            traced.end(response.getStatus(), failure);
            super.failed(failure);
          }
        };
    boolean handled;
    try (Scope scope = traced.context.makeCurrent()) {
      handled = super.handle(request, response, ended);
    } catch (Exception | Error e) {
      traced.end(500, e);
      throw e;
    }
    if (!handled) {
      // Jetty answers 404 itself, with the original callback.
      traced.end(404, null);
    }
    return handled;
  }

  /**
   * Makes the request's span current for its handlers, its route ({@code template}) named, its ids
   * in their log lines; nothing when the request is not traced.
   */
  static Scope enter(HttpServletRequest request, String template) {
    if (!(request.getAttribute(TRACED) instanceof Traced traced)) {
      return Scope.noop();
    }
    traced.route = template;
    return NoteSpans.enter(traced.context);
  }

  /** Names the request's id on its span, as its access line names it. */
  static void nameRequest(HttpServletRequest request, String requestId) {
    if (request.getAttribute(TRACED) instanceof Traced traced) {
      traced.span.setAttribute(NoteSpans.REQUEST_ID, requestId);
    }
  }

  private static String pathOf(Request request) {
    return Request.getPathInContext(request);
  }

  /** One traced request: its span, the context its work runs in, its route once known. */
  private static final class Traced {
    final Span span;
    final Context context;
    final String method;
    final String path;
    final AtomicBoolean ended = new AtomicBoolean();
    volatile @Nullable String route;

    Traced(Span span, Context context, String method, String path) {
      this.span = span;
      this.context = context;
      this.method = method;
      this.path = path;
    }

    void end(int status, @Nullable Throwable failure) {
      if (!ended.compareAndSet(false, true)) {
        return;
      }
      @Nullable String template = route;
      if (template != null) {
        span.updateName(method + " " + template);
        span.setAttribute(HTTP_ROUTE, template);
        span.setAttribute(URL_PATH, template);
      } else {
        // No device route: a probe, a page or an unknown path, none of which names a device's
        // upload or note.
        span.setAttribute(URL_PATH, path);
      }
      span.setAttribute(HTTP_RESPONSE_STATUS_CODE, status);
      if (failure != null) {
        // The exchange broke (the client left, the server stopped): the type, not the message.
        span.setAttribute(ERROR_TYPE, failure.getClass().getName());
        span.setStatus(StatusCode.ERROR);
      } else if (status >= 500) {
        // The semantic conventions: a 4xx is the client's doing, not the server span's error.
        span.setAttribute(ERROR_TYPE, Integer.toString(status));
        span.setStatus(StatusCode.ERROR);
      }
      span.end();
    }
  }
}
