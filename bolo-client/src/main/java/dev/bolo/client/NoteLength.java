package dev.bolo.client;

/**
 * Reads a note's duration from its container, so that the read timeout scales with the note.
 * Returns -1 when the container does not say or cannot be read: the timeout then stays at its base,
 * and the app may give the duration with {@link VoiceNote#withDurationMs}.
 */
final class NoteLength {

  /** How much of the note's start is kept for reading its header. */
  static final int HEAD_BYTES = WavHeader.PREFIX_BYTES;

  private NoteLength() {}

  /**
   * The duration in milliseconds, or -1 when unknown.
   *
   * @param head the first bytes of the note (up to {@link #HEAD_BYTES})
   * @param headLength how many bytes of {@code head} are valid
   * @param size the whole note's size
   */
  static long millis(byte[] head, int headLength, long size) {
    return WavHeader.durationMs(head, headLength, size);
  }
}
