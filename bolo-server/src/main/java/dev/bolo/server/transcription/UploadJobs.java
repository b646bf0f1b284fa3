package dev.bolo.server.transcription;

import dev.bolo.server.engine.Settings;
import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.JobRecord;
import dev.bolo.server.ledger.JobStatus;
import dev.bolo.server.ledger.JobStore;
import dev.bolo.server.ledger.StoredUpload;
import dev.bolo.server.ledger.UploadRegistry;
import dev.bolo.server.tracing.JobSpans;
import dev.bolo.server.webhook.WebhookUrlPolicy;
import dev.bolo.server.work.KeptTranscript;
import java.io.InputStream;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Jobs made for the note of a finished resumable upload ({@code upload_id}): that note was
 * transcribed when its last byte arrived, so such a job is made ended, from the replay. Thread safe
 * (stateless over its collaborators).
 */
record UploadJobs(
    UploadRegistry uploads,
    Intake intake,
    NoteLookup lookups,
    WebhookUrlPolicy urls,
    JobStore store,
    JobStore.Bounds bounds,
    JobRendering rendering,
    Clock clock,
    JobRunner runner) {

  Jobs.Submission submit(
      Device device,
      String uploadId,
      @Nullable String webhookUrl,
      Map<String, String> metadata,
      @Nullable String idempotencyKey)
      throws InterruptedException {
    Optional<StoredUpload> found =
        uploads.find(uploadId).filter(upload -> upload.device().equals(device.name()));
    String audioSha256 = found.map(StoredUpload::audioSha256).orElse(null);
    if (found.isEmpty()
        || found.get().state() != StoredUpload.State.DONE
        || audioSha256 == null
        || !found.get().expiresAt().isAfter(clock.instant())) {
      return new Jobs.Submission.NoSuchUpload(
          "no finished upload of that id for this device; make the job with the note itself");
    }
    Map<String, String> fields = UploadStore.fieldsOf(found.get());
    Settings settings = intake.settingsOfUploaded(SettingFields.of(fields));
    Optional<KeptTranscript> kept = lookups.stored(device, settings, audioSha256, Duration.ZERO);
    if (kept.isEmpty()) {
      return new Jobs.Submission.NoSuchUpload(
          "the upload's transcript is no longer kept; make the job with the note itself");
    }
    if (webhookUrl != null) {
      try {
        urls.check(webhookUrl);
      } catch (WebhookUrlPolicy.RefusedWebhookUrl e) {
        return new Jobs.Submission.RefusedUrl(
            Objects.requireNonNullElse(e.getMessage(), "this webhook_url may not be called"));
      }
    }
    String id = JobFields.newId("job_");
    JobRecord job =
        new JobRecord(
            id,
            device.name(),
            JobStatus.SUCCEEDED,
            JobFields.json(fields),
            audioSha256,
            0,
            kept.get().durationMs(),
            null,
            idempotencyKey,
            webhookUrl,
            JobFields.json(metadata),
            rendering.result(kept.get(), settings, true, id),
            null,
            clock.instant(),
            clock.instant(),
            0,
            JobSpans.traceparent());
    return switch (store.create(job, InputStream.nullInputStream(), bounds, runner::eventOf)) {
      case JobStore.Creation.Created created -> new Jobs.Submission.Accepted(created.job(), false);
      case JobStore.Creation.Existing existing ->
          existing.job().audioSha256().equals(audioSha256)
              ? new Jobs.Submission.Accepted(existing.job(), true)
              : new Jobs.Submission.KeyReused(
                  "this Idempotency-Key was used for a job of other audio or settings; use a new"
                      + " key per job");
      case JobStore.Creation.Full full -> new Jobs.Submission.Full(full.message());
    };
  }
}
