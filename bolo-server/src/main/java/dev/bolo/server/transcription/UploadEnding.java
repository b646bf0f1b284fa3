package dev.bolo.server.transcription;

import dev.bolo.server.engine.ResponseFormat;
import dev.bolo.server.upload.UploadResult;
import dev.bolo.server.work.KeptTranscript;
import dev.bolo.server.work.Problem;
import dev.bolo.server.work.WorkResult;

/** How a resumable upload ended once its last byte arrived. */
public sealed interface UploadEnding {

  /**
   * Transcribed, or replayed from earlier work.
   *
   * @param model the model the work ran with, its alias resolved
   * @param format the format the upload asked its text in
   */
  record Transcribed(
      KeptTranscript transcript, boolean replayed, String model, ResponseFormat format)
      implements UploadEnding {}

  /** The work was refused (quota, engine, ...), exactly as a POST would be. */
  record Failed(WorkResult.Refused refused) implements UploadEnding {}

  /** The bytes are no note Bolo takes: empty, not audio, or contradictory headers. */
  record Unusable(UploadResult.Invalid why) implements UploadEnding {}

  /** The server's hash contradicts the {@code sha256} the client declared. */
  record HashMismatch(String declared, String computed) implements UploadEnding {}

  /** How an upload ends whose work could not start: the phone sends the note again. */
  static UploadEnding notStarted() {
    return new Failed(
        new WorkResult.Refused(
            Problem.SERVER_UNAVAILABLE,
            "the gateway could not start transcribing this note; send it again"));
  }

  /** How an upload ends whose note a restart lost mid-work: the phone sends it again. */
  static UploadEnding lost() {
    return new Failed(
        new WorkResult.Refused(
            Problem.SERVER_UNAVAILABLE,
            "the gateway restarted while transcribing this note and lost its bytes; send it"
                + " again"));
  }
}
