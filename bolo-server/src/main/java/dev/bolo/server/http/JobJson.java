package dev.bolo.server.http;

import dev.bolo.server.engine.Settings;
import dev.bolo.server.transcription.JobRendering;
import dev.bolo.server.work.KeptTranscript;
import dev.bolo.server.work.WorkResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * A job's result and error in the shapes {@code POST /v1/transcriptions} answers ({@link
 * NativeAnswer}, {@link ErrorWriter}), for the job to keep. Stateless and thread safe.
 */
public final class JobJson implements JobRendering {

  @Override
  public String result(
      KeptTranscript transcript, Settings settings, boolean replayed, String jobId) {
    try {
      return new String(
          NativeAnswer.body(
              transcript, settings.responseFormat(), replayed, jobId, settings.model()),
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public String error(WorkResult.Refused refused, String jobId) {
    return new String(
        ErrorWriter.body(Dialect.NATIVE, Errors.of(refused), jobId), StandardCharsets.UTF_8);
  }
}
