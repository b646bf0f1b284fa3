package dev.bolo.decode;

import java.io.IOException;
import java.util.Objects;

/**
 * The note's bytes are not audio that can be decoded: no recognised container, no audio stream, a
 * codec without a decoder, or data damaged beyond the decoder's repair. The client's fault (400
 * {@code invalid_audio}); a resend of the same bytes cannot succeed.
 *
 * <p>It carries two texts, kept apart so that a library's words never reach a client: {@link
 * #sentence()}, Bolo's own sentence for the client (also the exception's message), and {@link
 * #detail()}, what FFmpeg said, made one line of printable ASCII, for the operator's log only.
 *
 * <p>An {@link IOException} so that it passes through code that reads samples; catch it before
 * {@code IOException}, which is a failure to read the note's bytes (the gateway's fault).
 */
public final class UndecodableAudioException extends IOException {

  private static final long serialVersionUID = 1L;

  private final String sentence;
  private final String detail;

  /** The note is undecodable for a reason Bolo states whole in {@code sentence}. */
  public UndecodableAudioException(String sentence) {
    this(sentence, "");
  }

  /**
   * The note is undecodable, as {@code sentence} tells the client; {@code detail} is FFmpeg's own
   * account, for the log.
   */
  UndecodableAudioException(String sentence, String detail) {
    super(Objects.requireNonNull(sentence, "sentence"));
    this.sentence = sentence;
    this.detail = FfmpegError.printable(Objects.requireNonNull(detail, "detail"));
  }

  /** Bolo's own sentence for the client: what is wrong with the note, without a library's words. */
  public String sentence() {
    return sentence;
  }

  /** What FFmpeg said, one line of printable ASCII, for the log; empty when it said nothing. */
  public String detail() {
    return detail;
  }
}
