package dev.bolo.server.engine;

import dev.bolo.server.upload.AudioContent;
import java.time.Duration;
import java.util.Objects;

/**
 * One call to an engine.
 *
 * @param audio the note; valid for the duration of the call only
 * @param settings canonical settings; {@code settings.engine()} is the called engine's name
 * @param timeout how long the engine may take before answering {@link EngineResult.TimedOut}
 * @param requestId the client's label for logs only
 * @param deltas receives the text as it arrives, from engines that stream; the others only answer
 *     the whole text in their result
 * @param progress receives how far the engine has got, from engines that work through a note in
 *     order
 * @param device the device whose work the note is, for the keys of its pieces (PROTOCOL.md rule
 *     11); empty for a call outside the gateway's work (a benchmark), which is never sent in pieces
 * @param noteMillis the note's length as the gateway counted it, 0 when it did not
 */
public record EngineRequest(
    AudioContent audio,
    Settings settings,
    Duration timeout,
    String requestId,
    TranscriptDeltas deltas,
    NoteProgress progress,
    String device,
    long noteMillis) {
  public EngineRequest {
    Objects.requireNonNull(audio, "audio");
    Objects.requireNonNull(deltas, "deltas");
    Objects.requireNonNull(progress, "progress");
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(device, "device");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive: " + timeout);
    }
    if (noteMillis < 0) {
      throw new IllegalArgumentException("noteMillis must be >= 0: " + noteMillis);
    }
  }

  /** A call that is no device's work and whose length the gateway did not count. */
  public EngineRequest(
      AudioContent audio,
      Settings settings,
      Duration timeout,
      String requestId,
      TranscriptDeltas deltas,
      NoteProgress progress) {
    this(audio, settings, timeout, requestId, deltas, progress, "", 0);
  }

  /** A call whose caller wants no progress reports. */
  public EngineRequest(
      AudioContent audio,
      Settings settings,
      Duration timeout,
      String requestId,
      TranscriptDeltas deltas) {
    this(audio, settings, timeout, requestId, deltas, NoteProgress.none());
  }

  /** A call whose caller wants the final text only. */
  public EngineRequest(AudioContent audio, Settings settings, Duration timeout, String requestId) {
    this(audio, settings, timeout, requestId, TranscriptDeltas.none());
  }

  /**
   * The same note asked with {@code settings} within {@code timeout}: a route's call to a target.
   */
  public EngineRequest asking(Settings settings, Duration timeout) {
    return new EngineRequest(
        audio, settings, timeout, requestId, deltas, progress, device, noteMillis);
  }
}
