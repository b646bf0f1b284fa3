package dev.bolo.server.transcription;

/**
 * Why the use case turned a note (or a lookup of one) away before any work: nothing was run, stored
 * or charged. The HTTP layer gives each its status and code.
 */
public sealed interface NoteRefusal {

  /** A setting cannot be read or is out of range, e.g. {@code temperature=warm}. */
  record Malformed(String parameter, String message) implements NoteRefusal {}

  /** A setting is well formed but this gateway does not offer it, e.g. a model off the list. */
  record NotOffered(String parameter, String message) implements NoteRefusal {}

  /**
   * The audio's SHA-256 as the server computed it is not the one the client sent with it: the
   * upload was damaged or the client's hash is wrong.
   *
   * @param claimed the client's hash, as sent
   * @param computed the server's, lower-case hex
   */
  record HashMismatch(String claimed, String computed) implements NoteRefusal {}

  /** A translation was asked of an engine that cannot translate. */
  record TranslationUnsupported(String engine) implements NoteRefusal {}
}
