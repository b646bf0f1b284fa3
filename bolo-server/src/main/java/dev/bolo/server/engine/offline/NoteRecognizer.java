package dev.bolo.server.engine.offline;

import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Turns a piece of a note into utterances, timed from the piece's start. Not thread safe: one piece
 * at a time.
 */
interface NoteRecognizer {

  /**
   * Recognises a piece, reading its samples as it goes.
   *
   * @param samples the piece, read to its end
   * @param stop polled while the piece is processed; true means give up and return what is done
   */
  List<Utterance> recognize(NoteSamples samples, BooleanSupplier stop);

  /** Frees what this recogniser holds of its own. */
  void close();

  /**
   * Makes recognisers over one loaded model, and frees the model when the engine closes. Not thread
   * safe.
   */
  interface Factory extends AutoCloseable {
    NoteRecognizer newRecognizer();

    /** Frees the model; no recogniser it made is used after this. */
    @Override
    default void close() throws Exception {}
  }
}
