package dev.bolo.server.engine.moonshine;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Moonshine's SentencePiece vocabulary, for turning token ids back into text: {@code ▁} stands for
 * a space, {@code <0x41>}-style tokens are single bytes (byte fallback, for characters the
 * vocabulary has no piece for), and the text is the UTF-8 of all the pieces together with the one
 * space that starts it removed, as Hugging Face's decoder for this tokenizer does (Replace ▁,
 * ByteFallback, Fuse, Strip one leading space). Control tokens ({@code <unk>}, {@code <s>}, {@code
 * </s>}) and the model's special tokens past the vocabulary (ids 32000–32767) stand for no text.
 *
 * <p>Immutable and thread safe.
 */
final class Vocabulary {

  /** Tokens in the vocabulary; the model's logits cover 32768, the rest being special tokens. */
  static final int SIZE = 32_000;

  /** Ids 0–2: unknown, start of text, end of text. */
  private static final int FIRST_TEXT_ID = 3;

  private static final char SPACE_PIECE = '\u2581';

  private final byte[][] pieces;

  private Vocabulary(byte[][] pieces) {
    this.pieces = pieces;
  }

  /**
   * Reads the vocabulary from {@code vocab.json}: a JSON array of {@value #SIZE} strings, a token's
   * id being its index.
   */
  static Vocabulary parse(byte[] json) {
    List<?> tokens;
    try {
      tokens = new ObjectMapper().readValue(json, List.class);
    } catch (IOException e) {
      throw new UncheckedIOException("vocab.json is not a JSON array", e);
    }
    if (tokens.size() != SIZE) {
      throw new IllegalArgumentException(
          "vocab.json must hold " + SIZE + " tokens: " + tokens.size());
    }
    byte[][] pieces = new byte[SIZE][];
    for (int id = 0; id < SIZE; id++) {
      pieces[id] = piece(id, String.valueOf(tokens.get(id)));
    }
    return new Vocabulary(pieces);
  }

  private static byte[] piece(int id, String token) {
    if (id < FIRST_TEXT_ID) {
      return new byte[0];
    }
    if (token.length() == 6 && token.startsWith("<0x") && token.endsWith(">")) {
      return new byte[] {(byte) Integer.parseInt(token.substring(3, 5), 16)};
    }
    return token.replace(SPACE_PIECE, ' ').getBytes(StandardCharsets.UTF_8);
  }

  /** The text of {@code ids[0..length)}; ids that stand for no text are skipped. */
  String decode(int[] ids, int length) {
    ByteArrayOutputStream utf8 = new ByteArrayOutputStream(length * 4);
    for (int i = 0; i < length; i++) {
      int id = ids[i];
      if (id >= 0 && id < SIZE) {
        utf8.writeBytes(pieces[id]);
      }
    }
    // Bytes that do not form UTF-8 (a byte-fallback sequence cut short) become U+FFFD.
    String text = utf8.toString(StandardCharsets.UTF_8);
    return text.startsWith(" ") ? text.substring(1) : text;
  }
}
