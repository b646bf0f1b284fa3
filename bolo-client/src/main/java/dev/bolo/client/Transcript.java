package dev.bolo.client;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The gateway's answer for one note.
 *
 * @param text the transcript
 * @param deduplicated true when the text came from earlier or in-flight work for the same audio and
 *     settings (a resend that was not transcribed or charged again)
 * @param audioSha256 the gateway's own hex SHA-256 of the audio
 * @param durationMs the note's length as the gateway measured it; null when it could not tell
 * @param requestId the request id the gateway logged this answer under
 * @param engine the engine that produced the text, such as {@code offline} or {@code openai}
 */
public record Transcript(
    String text,
    boolean deduplicated,
    String audioSha256,
    @Nullable Long durationMs,
    String requestId,
    String engine) {

  public Transcript {
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(audioSha256, "audioSha256");
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(engine, "engine");
  }
}
