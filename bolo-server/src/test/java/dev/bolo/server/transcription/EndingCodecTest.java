package dev.bolo.server.transcription;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.engine.ResponseFormat;
import dev.bolo.server.engine.Transcript;
import dev.bolo.server.ledger.StoredUpload;
import dev.bolo.server.upload.UploadResult;
import dev.bolo.server.work.KeptTranscript;
import dev.bolo.server.work.Problem;
import dev.bolo.server.work.WorkResult;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class EndingCodecTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void eachEndingIsKeptInTheShapeEarlierVersionsWrote() throws Exception {
    assertStored(
        new UploadEnding.Transcribed(
            new KeptTranscript(Transcript.plain("hi"), "openai", 1000, true, "ab", "cd"),
            true,
            "whisper-1",
            ResponseFormat.JSON),
        "{\"kind\":\"transcribed\",\"replayed\":true}");
    assertStored(
        new UploadEnding.Failed(
            new WorkResult.Refused(
                Problem.QUOTA_EXHAUSTED, "no seconds left", Duration.ofSeconds(5))),
        "{\"kind\":\"refused\",\"problem\":\"QUOTA_EXHAUSTED\",\"message\":\"no seconds left\","
            + "\"retry_after_ms\":5000}");
    assertStored(
        new UploadEnding.Unusable(
            new UploadResult.Invalid(UploadResult.Reason.EMPTY_AUDIO, "the upload is empty")),
        "{\"kind\":\"unusable\",\"reason\":\"EMPTY_AUDIO\",\"message\":\"the upload is empty\"}");
    assertStored(
        new UploadEnding.HashMismatch("aa", "bb"),
        "{\"kind\":\"hash_mismatch\",\"declared\":\"aa\",\"computed\":\"bb\"}");
  }

  @Test
  void everyFailureReadsBackAsItWasWritten() {
    for (UploadEnding ending :
        new UploadEnding[] {
          new UploadEnding.Failed(new WorkResult.Refused(Problem.UPSTREAM_ERROR, "502 upstream")),
          new UploadEnding.Failed(
              new WorkResult.Refused(Problem.SERVER_UNAVAILABLE, "busy", Duration.ofMillis(1500))),
          new UploadEnding.Unusable(
              new UploadResult.Invalid(UploadResult.Reason.UNSUPPORTED_AUDIO, "not audio")),
          new UploadEnding.HashMismatch("aa", "bb")
        }) {
      assertThat(EndingCodec.stateOf(ending)).isEqualTo(StoredUpload.State.FAILED);
      assertThat(EndingCodec.failure(stored(StoredUpload.State.FAILED, EndingCodec.encode(ending))))
          .isEqualTo(ending);
    }
  }

  @Test
  void aTranscribedUploadKeepsWhetherItWasReplayed() {
    UploadEnding replayed =
        new UploadEnding.Transcribed(
            new KeptTranscript(Transcript.plain("hi"), "openai", 1000, true, "ab", "cd"),
            true,
            "whisper-1",
            ResponseFormat.JSON);

    StoredUpload done = stored(StoredUpload.State.DONE, EndingCodec.encode(replayed));

    assertThat(EndingCodec.stateOf(replayed)).isEqualTo(StoredUpload.State.DONE);
    assertThat(EndingCodec.replayed(done)).isTrue();
    assertThat(EndingCodec.replayed(stored(StoredUpload.State.DONE, "{\"kind\":\"transcribed\"}")))
        .isFalse();
  }

  @Test
  void anOutcomeOfAnUnknownKindIsABug() {
    StoredUpload odd = stored(StoredUpload.State.FAILED, "{\"kind\":\"vanished\"}");

    assertThatThrownBy(() -> EndingCodec.failure(odd))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(odd.id());
  }

  private static void assertStored(UploadEnding ending, String json) throws Exception {
    assertThat(JSON.readTree(EndingCodec.encode(ending))).isEqualTo(JSON.readTree(json));
  }

  private static StoredUpload stored(StoredUpload.State state, String outcome) {
    Instant now = Instant.parse("2026-12-03T08:00:00Z");
    return new StoredUpload(
        "0123456789abcdef0123456789abcdef",
        "alpha",
        "instance-1",
        "tus",
        10,
        10,
        "{}",
        null,
        null,
        state,
        "ab",
        outcome,
        now,
        now.plus(Duration.ofHours(24)));
  }
}
