package dev.bolo.server.upload;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A parsed upload: the note and the text fields that came with it. Closing it releases the
 * request's reference to the audio.
 *
 * @param audio the note, hashed and sniffed
 * @param fields text parts by name, in arrival order
 */
public record Upload(SpooledAudio audio, Map<String, List<String>> fields)
    implements AutoCloseable {

  public Upload {
    Objects.requireNonNull(audio, "audio");
    fields = Map.copyOf(fields);
  }

  /** The first value of a text field, or null when absent. */
  public @Nullable String field(String name) {
    List<String> values = fields.get(name);
    return values == null || values.isEmpty() ? null : values.get(0);
  }

  /** Every value of a repeatable text field, such as {@code timestamp_granularities[]}. */
  public List<String> fieldValues(String name) {
    return fields.getOrDefault(name, List.of());
  }

  @Override
  public void close() {
    audio.close();
  }
}
