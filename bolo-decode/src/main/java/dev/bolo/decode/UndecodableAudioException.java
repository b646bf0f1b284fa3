package dev.bolo.decode;

import java.io.IOException;

/**
 * The note's bytes are not audio that can be decoded: no recognised container, no audio stream, a
 * codec without a decoder, or data damaged beyond the decoder's repair. The client's fault (400
 * {@code invalid_audio}); a resend of the same bytes cannot succeed.
 *
 * <p>An {@link IOException} so that it passes through code that reads samples; catch it before
 * {@code IOException}, which is a failure to read the note's bytes (the gateway's fault).
 */
public final class UndecodableAudioException extends IOException {

  private static final long serialVersionUID = 1L;

  public UndecodableAudioException(String message) {
    super(message);
  }
}
