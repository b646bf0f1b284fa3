package dev.bolo.server.engine.offline;

import java.util.List;
import java.util.function.BooleanSupplier;

/** Turns one note's samples into utterances. Not thread safe: one note at a time. */
interface NoteRecognizer {

  /**
   * Recognises a whole note.
   *
   * @param samples 16 kHz mono signed 16-bit samples
   * @param stop polled while the note is processed; true means give up and return what is done
   */
  List<Utterance> recognize(short[] samples, BooleanSupplier stop);

  /** Frees the recogniser's search structures. */
  void close();

  /** Makes recognisers over one loaded model. Not thread safe. */
  interface Factory {
    NoteRecognizer newRecognizer();
  }
}
