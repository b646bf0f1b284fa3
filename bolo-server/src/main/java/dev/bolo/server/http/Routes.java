package dev.bolo.server.http;

import dev.bolo.server.Readiness;
import dev.bolo.server.Transcriber;
import dev.bolo.server.audio.UploadReader;
import dev.bolo.server.engine.Task;
import dev.bolo.server.ledger.Ledger;
import dev.bolo.server.ledger.LedgerException;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Registers every route of the wire contract; tests reuse it on their own Javalin. */
public final class Routes {

  private static final Logger log = LoggerFactory.getLogger(Routes.class);

  private Routes() {}

  /** What the routes need from the composition root. */
  public record Services(
      Ledger ledger,
      UploadReader uploads,
      Transcriber transcriber,
      InFlightRequests inFlight,
      Map<String, Supplier<Readiness>> readiness,
      PrometheusMeterRegistry metrics,
      ConnectionTimeouts timeouts) {}

  public static void register(RoutesConfig routes, Services services) {
    routes.post(
        "/v1/transcriptions",
        new TranscriptionHandler(
            TranscriptionHandler.Dialect.NATIVE,
            Task.TRANSCRIBE,
            services.ledger(),
            services.uploads(),
            services.transcriber(),
            services.inFlight(),
            services.timeouts()));
    routes.get(
        LookupHandler.PATH,
        new LookupHandler(
            services.ledger(), services.transcriber(), services.inFlight(), services.timeouts()));
    for (Task task : Task.values()) {
      routes.post(
          task == Task.TRANSCRIBE ? "/v1/audio/transcriptions" : "/v1/audio/translations",
          new TranscriptionHandler(
              TranscriptionHandler.Dialect.OPENAI,
              task,
              services.ledger(),
              services.uploads(),
              services.transcriber(),
              services.inFlight(),
              services.timeouts()));
    }
    ModelsHandler models = new ModelsHandler(services.ledger(), services.transcriber());
    routes.get("/v1/models", models::list);
    routes.get("/v1/models/{model}", models::one);
    // 404, 405 and Javalin's other HTTP errors; an unwanted upload is drained like a refused one.
    UnroutedRequests unrouted =
        new UnroutedRequests(services.uploads().maxAudioBytes() + 1024 * 1024);
    routes.exception(HttpResponseException.class, unrouted::handle);
    OperationsHandlers operations =
        new OperationsHandlers(services.readiness(), services.metrics());
    routes.get("/healthz", operations::health);
    routes.get("/readyz", operations::ready);
    routes.get("/metrics", operations::metrics);
    WebPages.register(routes);
    routes.exception(
        LedgerException.class,
        (e, ctx) -> {
          log.error("the ledger is unavailable: {}", e.getMessage());
          ctx.header("Retry-After", "5");
          ctx.status(503)
              .contentType("application/json")
              .result(
                  errorBody(
                      ctx,
                      Errors.serverUnavailable(
                          "the device ledger is unavailable; retry shortly", null)));
        });
    routes.exception(
        Exception.class,
        (e, ctx) -> {
          log.error("unexpected failure on {} {}", ctx.method(), ctx.path(), e);
          ctx.status(500).contentType("application/json").result(errorBody(ctx, Errors.internal()));
        });
  }

  private static byte[] errorBody(Context ctx, ApiError error) {
    RequestMetrics.noteOutcome(ctx.req(), error.code());
    return ErrorWriter.body(
        ErrorWriter.dialectOf(ctx.path()), error, TranscriptionHandler.requestIdOf(ctx));
  }
}
