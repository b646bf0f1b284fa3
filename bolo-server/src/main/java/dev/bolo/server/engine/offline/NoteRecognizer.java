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

  /** Frees the recogniser's search structures. */
  void close();

  /** Makes recognisers over one loaded model. Not thread safe. */
  interface Factory {
    NoteRecognizer newRecognizer();
  }
}
