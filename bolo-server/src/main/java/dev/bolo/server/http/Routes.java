package dev.bolo.server.http;

import dev.bolo.server.health.Readiness;
import dev.bolo.server.ledger.Ledger;
import dev.bolo.server.ledger.LedgerException;
import dev.bolo.server.tls.PhoneAccess;
import dev.bolo.server.transcription.Intake;
import dev.bolo.server.transcription.Jobs;
import dev.bolo.server.transcription.ResumableUploads;
import dev.bolo.server.transcription.Transcriber;
import dev.bolo.server.upload.UploadReader;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Registers every route of the wire contract; tests reuse it on their own Javalin. */
public final class Routes {

  private static final Logger log = LoggerFactory.getLogger(Routes.class);

  /** How a client of a resumable upload tries again after the gate turned it away. */
  private static final String RESUME = "resume shortly";

  /** How a client of a lookup or the model list asks again after the gate turned it away. */
  private static final String ASK_AGAIN = "ask again shortly";

  private Routes() {}

  /** What the routes need from the composition root. */
  public record Services(
      Ledger ledger,
      UploadReader reader,
      Transcriber transcriber,
      InFlightRequests inFlight,
      Map<String, Supplier<Readiness>> readiness,
      PrometheusMeterRegistry metrics,
      ConnectionTimeouts timeouts,
      ResumableUploads resumable,
      PhoneAccess phones,
      WrongTokens wrongTokens,
      LongSupplier wireTicker,
      Jobs jobs) {}

  public static void register(RoutesConfig routes, Services services) {
    DeviceGate gate =
        new DeviceGate(services.ledger(), services.inFlight(), services.wrongTokens());
    UploadExchange exchange = new UploadExchange(services.resumable(), services.timeouts());
    ResumableDraftHandler draft = new ResumableDraftHandler(exchange);
    // A POST that speaks the IETF resumable-upload draft is a resumable upload of the same note.
    // Every device route is named, logged and timed alike by RequestLog, then let in by the gate;
    // its access line says how long the request took in real time.
    LongSupplier ticker = services.wireTicker();
    routes.post(
        "/v1/transcriptions",
        RequestLog.around(
            ResumableDraftHandler.or(
                gate.around(RESUME, draft::create),
                gate.aroundUpload(
                    new TranscriptionHandler(
                        Dialect.NATIVE,
                        services.transcriber().transcriptions(),
                        services.reader(),
                        services.transcriber(),
                        services.timeouts()))),
            ticker));
    registerResumable(routes, gate, exchange, draft, ticker);
    // Draining for shutdown, too: a lookup may wait up to a minute, which a drain does not grant.
    routes.get(
        LookupHandler.PATH,
        RequestLog.around(
            gate.around(
                ASK_AGAIN,
                new LookupHandler(services.transcriber().lookups(), services.timeouts())),
            ticker));
    Map<String, Intake> openAi =
        Map.of(
            "/v1/audio/transcriptions", services.transcriber().transcriptions(),
            "/v1/audio/translations", services.transcriber().translations());
    openAi.forEach(
        (path, intake) ->
            routes.post(
                path,
                RequestLog.around(
                    gate.aroundUpload(
                        new TranscriptionHandler(
                            Dialect.OPENAI,
                            intake,
                            services.reader(),
                            services.transcriber(),
                            services.timeouts())),
                    ticker)));
    registerJobs(routes, gate, services, ticker);
    // Behind the gate like every device route: a device over its rate and a draining gateway are
    // answered here as on the others.
    ModelsHandler models = new ModelsHandler(services.transcriber());
    routes.get("/v1/models", RequestLog.around(gate.around(ASK_AGAIN, models::list), ticker));
    routes.get(
        "/v1/models/{model}", RequestLog.around(gate.around(ASK_AGAIN, models::one), ticker));
    // 404, 405 and Javalin's other HTTP errors; an unwanted upload closes like a refused one.
    UnroutedRequests unrouted = new UnroutedRequests();
    routes.exception(HttpResponseException.class, unrouted::handle);
    OperationsHandlers operations =
        new OperationsHandlers(services.readiness(), services.metrics());
    routes.get("/healthz", operations::health);
    routes.get("/readyz", operations::ready);
    routes.get("/metrics", operations::metrics);
    WebPages.register(routes);
    PhoneSetup.register(routes, services.phones());
    // Failures that escape a handler are answered like every other error: one writer, the
    // request's own dialect, Retry-After from the error itself; logged under the request's id,
    // with its access line.
    routes.exception(
        LedgerException.class,
        (e, ctx) ->
            answerFailure(
                ctx,
                e,
                () -> {
                  log.error("the ledger is unavailable: {}", e.getMessage());
                  ErrorWriter.write(
                      ctx,
                      Dialect.of(ctx.path()),
                      Errors.serverUnavailable(
                          "the device ledger is unavailable; retry shortly", null));
                },
                ticker));
    routes.exception(
        Exception.class,
        (e, ctx) ->
            answerFailure(
                ctx,
                e,
                () -> {
                  log.error("unexpected failure on {} {}", ctx.method(), ctx.path(), e);
                  ErrorWriter.write(ctx, Dialect.of(ctx.path()), Errors.internal());
                },
                ticker));
  }

  /**
   * Answers a failure that escaped a handler ({@code answer} logs it and writes the error), never
   * throwing: Javalin hands a failure that escapes its exception handler to them again, and a
   * request Jetty had already ended and recycled (the server stopped, the connection failed) throws
   * on whatever is asked of it. Such a failure is logged with its stack; nobody is left to answer.
   */
  static void answerFailure(Context ctx, Exception failure, Runnable answer, LongSupplier ticker) {
    try {
      RequestLog.failed(ctx, answer, ticker);
    } catch (RuntimeException unanswered) {
      // Mostly a request Jetty had ended (its client left, the server stopped); the failure's own
      // stack is kept, whatever kept it from being answered.
      log.warn(
          "a failure could not be answered (its request had ended, or the answer failed: {})",
          unanswered.toString(),
          failure);
    }
  }

  /** Jobs (PROTOCOL v4): a note handed over now, transcribed later, its webhook told. */
  private static void registerJobs(
      RoutesConfig routes, DeviceGate gate, Services services, LongSupplier ticker) {
    JobHandler jobs = new JobHandler(services.jobs(), services.reader(), services.timeouts());
    routes.post(JobHandler.COLLECTION, RequestLog.around(gate.aroundUpload(jobs::create), ticker));
    routes.get(
        JobHandler.COLLECTION, RequestLog.around(gate.around(ASK_AGAIN, jobs::list), ticker));
    routes.get(JobHandler.ONE, RequestLog.around(gate.around(ASK_AGAIN, jobs::one), ticker));
    routes.delete(JobHandler.ONE, RequestLog.around(gate.around(ASK_AGAIN, jobs::cancel), ticker));
  }

  /** tus at /v1/uploads; the IETF draft's upload resource is the same path, told by its header. */
  private static void registerResumable(
      RoutesConfig routes,
      DeviceGate gate,
      UploadExchange exchange,
      ResumableDraftHandler draft,
      LongSupplier ticker) {
    TusHandler tus = new TusHandler(exchange);
    routes.options(TusHandler.COLLECTION, tus::options);
    routes.post(TusHandler.COLLECTION, RequestLog.around(gate.around(RESUME, tus::create), ticker));
    routes.head(
        UploadExchange.UPLOAD_PATH,
        RequestLog.around(
            gate.around(RESUME, ResumableDraftHandler.or(draft::head, tus::head)), ticker));
    routes.patch(
        UploadExchange.UPLOAD_PATH,
        RequestLog.around(
            gate.around(RESUME, ResumableDraftHandler.or(draft::patch, tus::patch)), ticker));
    routes.delete(
        UploadExchange.UPLOAD_PATH,
        RequestLog.around(
            gate.around(RESUME, ResumableDraftHandler.or(draft::delete, tus::delete)), ticker));
    routes.get(
        TusHandler.TRANSCRIPTION,
        RequestLog.around(gate.around(RESUME, tus::transcription), ticker));
  }
}
