package dev.bolo.server.transcription;

import dev.bolo.server.engine.Settings;
import dev.bolo.server.work.KeptTranscript;
import dev.bolo.server.work.WorkResult;

/**
 * The wire shapes a job carries inside it, which the HTTP layer owns: the transcription answer of a
 * succeeded job and the error of a failed one, each exactly as {@code POST /v1/transcriptions}
 * would have answered. A job keeps them as it ended, for its GET and its webhook. Thread safe.
 */
public interface JobRendering {

  /** The native answer's JSON for {@code transcript}, asked in {@code settings}. */
  String result(KeptTranscript transcript, Settings settings, boolean replayed, String jobId);

  /** The native error's JSON for {@code refused}. */
  String error(WorkResult.Refused refused, String jobId);
}
