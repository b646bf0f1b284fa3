package dev.bolo.server.engine.offline;

import java.io.IOException;
import java.util.List;
import java.util.function.BooleanSupplier;

/** Turns one note's samples into utterances. Not thread safe: one note at a time. */
interface NoteRecognizer {

  /**
   * Recognises a whole note, reading its samples as it goes.
   *
   * @param samples the note, read to its end
   * @param stop polled while the note is processed; true means give up and return what is done
   * @throws IOException when the samples could not be read; the recogniser ended the note cleanly
   *     and stays usable
   */
  List<Utterance> recognize(NoteSamples samples, BooleanSupplier stop) throws IOException;

  /** Frees the recogniser's search structures. */
  void close();

  /** Makes recognisers over one loaded model. Not thread safe. */
  interface Factory {
    NoteRecognizer newRecognizer();
  }
}
