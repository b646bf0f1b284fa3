package dev.bolo.server.engine;

/**
 * How far an engine has got with a note, for the clients that ask while it works (the lookup's and
 * the resumable upload's 202). Engines that work through a note in order (the offline engine, a
 * note sent in pieces) report it; the others say nothing. Must not block: it is called on the
 * engine's own thread.
 */
@FunctionalInterface
public interface NoteProgress {

  /** The note is done up to {@code millis} from its start. */
  void doneUpTo(long millis);

  /** Discards the reports: for callers nobody asks. */
  static NoteProgress none() {
    return millis -> {};
  }
}
