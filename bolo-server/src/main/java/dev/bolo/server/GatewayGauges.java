package dev.bolo.server;

import dev.bolo.server.dedup.DedupStore;
import dev.bolo.server.dedup.WorkCoordinator;
import dev.bolo.server.engine.AnswerBudget;
import dev.bolo.server.http.InFlightRequests;
import dev.bolo.server.ledger.ChargeOutbox;
import dev.bolo.server.upload.UploadReader;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmHeapPressureMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmInfoMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The gauges an operator alerts on, each with its help text, registered by the composition root:
 * work in flight, the upload spool, the ledger's outbox, the shared store, and the process and JVM.
 * Every meter of the gateway has a description, so no {@code # HELP} line is empty.
 */
final class GatewayGauges {

  private GatewayGauges() {}

  /**
   * JVM memory, GC (pauses, live data, the share of time spent collecting), threads, classes, CPU,
   * uptime and file descriptors.
   *
   * @return closes the GC binders, which listen to the JVM until then
   */
  static AutoCloseable bindProcessMetrics(MeterRegistry registry) {
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new JvmInfoMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
    JvmGcMetrics gc = new JvmGcMetrics();
    gc.bindTo(registry);
    JvmHeapPressureMetrics pressure = new JvmHeapPressureMetrics();
    pressure.bindTo(registry);
    return () -> {
      gc.close();
      pressure.close();
    };
  }

  static void bindStore(MeterRegistry registry, DedupStore store) {
    Gauge.builder("bolo_dedup_store_degraded", store, s -> s.isDegraded() ? 1 : 0)
        .description(
            "1 while the shared store is unreachable and de-duplication is per instance only")
        .register(registry);
    Gauge.builder("bolo_dedup_pending_writes", store, DedupStore::pendingWrites)
        .description("Results kept for the shared store until it is reachable again")
        .register(registry);
  }

  static void bindWork(
      MeterRegistry registry,
      ChargeOutbox charges,
      AtomicInteger runningWork,
      InFlightRequests requests) {
    Gauge.builder("bolo_charges_pending", charges, ChargeOutbox::pending)
        .description(
            "Charges waiting to be written to the ledger (the outbox's depth); grows while the"
                + " database is unreachable")
        .register(registry);
    Gauge.builder("bolo_work_running", runningWork, AtomicInteger::get)
        .description("Units of work in flight: engine calls and the waits that resolve them")
        .register(registry);
    Gauge.builder("bolo_transcription_requests_in_flight", requests, InFlightRequests::count)
        .description("Transcription requests being served now (uploading, waiting or answering)")
        .register(registry);
  }

  static void bindCoordinator(MeterRegistry registry, WorkCoordinator coordinator) {
    Gauge.builder("bolo_dedup_waiting_copies", coordinator, WorkCoordinator::copiesWaiting)
        .description("Requests on this instance waiting for the outcome of some work")
        .register(registry);
    Gauge.builder(
            "bolo_dedup_waiting_on_other_instances",
            coordinator,
            WorkCoordinator::waitingOnOtherInstances)
        .description("Notes this instance waits for because another instance claimed their work")
        .register(registry);
  }

  static void bindAnswers(MeterRegistry registry, AnswerBudget answers) {
    Gauge.builder("bolo_answer_bytes", answers, AnswerBudget::inUseBytes)
        .description("Provider answer bytes held now, charged to BOLO_ANSWER_BUDGET_BYTES")
        .baseUnit("bytes")
        .register(registry);
    Gauge.builder("bolo_answers_waiting", answers, AnswerBudget::waitingAnswers)
        .description("Provider answers waiting for room in BOLO_ANSWER_BUDGET_BYTES")
        .register(registry);
    Gauge.builder("bolo_answer_budget_bytes", answers, AnswerBudget::capacityBytes)
        .description("BOLO_ANSWER_BUDGET_BYTES: provider answer bytes held at once")
        .baseUnit("bytes")
        .register(registry);
  }

  static void bindUploads(MeterRegistry registry, UploadReader reader, long spoolMaxBytes) {
    Gauge.builder("bolo_spool_bytes", reader, UploadReader::spoolBytesInUse)
        .description("Bytes of spooled uploads on disk now")
        .baseUnit("bytes")
        .register(registry);
    Gauge.builder("bolo_spool_max_bytes", () -> spoolMaxBytes)
        .description("BOLO_SPOOL_MAX_BYTES: beyond it uploads get 503 server_unavailable")
        .baseUnit("bytes")
        .register(registry);
    Gauge.builder("bolo_upload_admitted_bytes", reader, UploadReader::admittedBytes)
        .description(
            "Declared bytes of the upload bodies being read now, against BOLO_UPLOAD_BUDGET_BYTES")
        .baseUnit("bytes")
        .register(registry);
    Gauge.builder("bolo_upload_waiting", reader, UploadReader::waitingUploads)
        .description("Upload bodies waiting for room in the upload budget before they are read")
        .register(registry);
  }
}
