package dev.bolo.server.engine.offline;

import dev.bolo.server.engine.moonshine.MoonshineRecognizer;
import dev.bolo.server.engine.moonshine.TimedTranscript;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * The offline engine's recognisers over one loaded Moonshine model: its sessions are shared by
 * every recogniser (ONNX Runtime's {@code run} is thread safe), so a recogniser is only a view of
 * the model for one pool thread. A piece's utterances are those Silero VAD cut from it, each timed
 * as a whole: Moonshine gives no word times. Thread safe; {@link #close} once no piece is running.
 */
final class MoonshineRecognizers implements NoteRecognizer.Factory {

  private final MoonshineRecognizer model;

  MoonshineRecognizers(MoonshineRecognizer model) {
    this.model = model;
  }

  @Override
  public NoteRecognizer newRecognizer() {
    return new NoteRecognizer() {
      @Override
      public List<Utterance> recognize(NoteSamples samples, BooleanSupplier stop) {
        try {
          return model.recognize(samples.floats(), stop, segment -> {}).segments().stream()
              .map(MoonshineRecognizers::utterance)
              .toList();
        } catch (IOException e) {
          throw new UncheckedIOException("samples held in memory cannot fail to be read", e);
        }
      }

      @Override
      public void close() {
        // The model is the factory's; a recogniser holds nothing of its own.
      }
    };
  }

  private static Utterance utterance(TimedTranscript.Segment segment) {
    return Utterance.untimed(segment.text(), segment.startMs(), segment.endMs());
  }

  @Override
  public void close() throws Exception {
    model.close();
  }
}
