package dev.bolo.server.upload;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.bolo.audio.AudioContainer;
import dev.bolo.audio.AudioDurations;
import dev.bolo.audio.Measurement;
import dev.bolo.audio.SeekableSource;
import dev.bolo.testkit.CleanText;
import dev.bolo.testkit.Directories;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Timeout;

/**
 * The multipart reader on fuzzed bodies and boundaries, with small limits so that the fuzzer
 * reaches them: every body ends in {@link UploadResult.Received} or a clear {@link
 * UploadResult.Invalid} whose message is one line of printable text ({@link CleanText}), never an
 * exception; nothing stays in the spool once the upload is closed; the note never passes the size
 * limit, text parts never pass theirs; a received note is exactly the bytes its part held and its
 * SHA-256 is theirs.
 *
 * <p>The first byte picks the body's shape. Even: raw, a boundary of up to 70 bytes then any body.
 * Odd: built from fuzzed parts (a name, a length, the bytes) so the fuzzer explores the parts, not
 * the multipart syntax; bit 1 leaves the closing delimiter off. Inputs: {@code
 * src/test/resources/dev/bolo/server/upload/UploadReaderFuzzTestInputs}.
 */
class UploadReaderFuzzTest {

  private static final int MAX_AUDIO_BYTES = 8 * 1024;
  private static final int IN_MEMORY_BYTES = 512;
  private static final int MAX_FIELD_CHARS = 16 * 1024;
  private static final List<String> PART_NAMES =
      List.of("audio", "file", "language", "prompt", "temperature", "audio\"", "");

  /** Characters RFC 2046 allows in a boundary (bchars), space last since it may not end one. */
  private static final String BCHARS =
      "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'()+_,-./:=? ";

  private static final Path FOLDER = temporaryFolder();
  private static final Path SPOOL = FOLDER.resolve("spool");

  /** One reader for every input, as one serves every request: its spool count must return to 0. */
  private static final UploadReader READER =
      new UploadReader(
          MAX_AUDIO_BYTES,
          IN_MEMORY_BYTES,
          SPOOL,
          new UploadReader.Bounds(4, 4, 1024 * 1024, 1, Duration.ofSeconds(10)),
          () -> 0L);

  @FuzzTest(maxDuration = "2s")
  @Timeout(10)
  void everyBodyIsReadOrRefusedAndLeavesNothingInTheSpool(byte[] input) throws IOException {
    if (input.length < 2) {
      return;
    }
    boolean built = (input[0] & 1) == 1;
    boolean closed = (input[0] & 2) == 0;
    int boundaryLength = 1 + Byte.toUnsignedInt(input[1]) % 70;
    int at = Math.min(input.length, 2 + boundaryLength);
    byte[] boundaryBytes = Arrays.copyOfRange(input, 2, at);
    byte[] rest = Arrays.copyOfRange(input, at, input.length);

    String boundary;
    byte[] body;
    @Nullable Part expected = null;
    boolean wellFormed = false;
    if (built) {
      boundary = bchars(boundaryBytes);
      List<Part> parts = parts(rest);
      body = body(boundary, parts, closed);
      expected = parts.stream().filter(Part::isAudio).findFirst().orElse(null);
      wellFormed = closed && isWellFormed(boundary, parts);
    } else {
      boundary = new String(boundaryBytes, StandardCharsets.ISO_8859_1);
      body = rest;
    }

    UploadResult result =
        READER.read(
            "multipart/form-data; boundary=\"" + boundary + "\"",
            body.length,
            new ByteArrayInputStream(body));

    switch (result) {
      case UploadResult.Received received -> {
        try (Upload upload = received.upload()) {
          byte[] audio = readAll(upload.audio());
          assertThat(audio).hasSizeBetween(1, MAX_AUDIO_BYTES);
          assertThat(upload.audio().size()).isEqualTo(audio.length);
          assertThat(upload.audio().isSpooled()).isEqualTo(audio.length > IN_MEMORY_BYTES);
          assertThat(upload.audio().sha256()).isEqualTo(sha256(audio));
          assertThat(upload.fields()).doesNotContainKeys("audio", "file");
          assertThat(upload.fields().values().stream().mapToInt(List::size).sum()).isLessThan(64);
          upload.fields().values().stream()
              .flatMap(List::stream)
              .forEach(value -> assertThat(value.length()).isLessThanOrEqualTo(MAX_FIELD_CHARS));
          if (expected != null && wellFormed) {
            assertThat(audio).isEqualTo(expected.content());
          }
        }
      }
      case UploadResult.Invalid invalid -> {
        assertThat(CleanText.check(invalid.message())).doesNotContain(SPOOL.toString());
        // A body built well, with one recognisable note within the limits, is never refused for
        // its form: only for its audio, whose own headers contradict its bytes, or which is a WAV
        // holding less than a millisecond of samples (chunks after its data chunk are allowed).
        if (wellFormed) {
          assertThat(invalid.reason())
              .isEqualTo(
                  expected != null && isEmptyWav(expected.content())
                      ? UploadResult.Reason.EMPTY_AUDIO
                      : UploadResult.Reason.INVALID_AUDIO);
        }
      }
    }
    assertThat(spoolFiles()).isEmpty();
    assertThat(READER.spoolBytesInUse()).isZero();
  }

  /** A part as the fuzzer chose it. */
  private record Part(String name, boolean withFileName, byte[] content) {
    boolean isAudio() {
      return name.equals("audio") || name.equals("file");
    }
  }

  /** Parts from the bytes: a name selector, a two-byte length, then that many bytes. */
  private static List<Part> parts(byte[] bytes) {
    List<Part> parts = new ArrayList<>();
    int at = 0;
    while (at + 3 <= bytes.length) {
      int selector = Byte.toUnsignedInt(bytes[at]);
      int length = (Byte.toUnsignedInt(bytes[at + 1]) << 8 | Byte.toUnsignedInt(bytes[at + 2]));
      int from = at + 3;
      int to = (int) Math.min(bytes.length, (long) from + length);
      parts.add(
          new Part(
              PART_NAMES.get(selector % PART_NAMES.size()),
              (selector & 0x80) != 0,
              Arrays.copyOfRange(bytes, from, to)));
      at = to;
    }
    return parts;
  }

  private static byte[] body(String boundary, List<Part> parts, boolean closed) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (Part part : parts) {
      String name = part.name().replace("\"", "\\\"");
      out.writeBytes(
          ("--"
                  + boundary
                  + "\r\nContent-Disposition: form-data; name=\""
                  + name
                  + "\""
                  + (part.withFileName() ? "; filename=\"note\"" : "")
                  + "\r\n\r\n")
              .getBytes(StandardCharsets.ISO_8859_1));
      out.writeBytes(part.content());
      out.writeBytes("\r\n".getBytes(StandardCharsets.ISO_8859_1));
    }
    if (closed) {
      out.writeBytes(("--" + boundary + "--\r\n").getBytes(StandardCharsets.ISO_8859_1));
    }
    return out.toByteArray();
  }

  /**
   * Whether the reader has no reason to refuse the body's form: one note, recognisable and within
   * the limit, text parts within theirs, no part holding the delimiter, a boundary that does not
   * end in a space.
   */
  private static boolean isWellFormed(String boundary, List<Part> parts) {
    if (boundary.isEmpty() || boundary.endsWith(" ") || parts.isEmpty() || parts.size() > 64) {
      return false;
    }
    byte[] delimiter = ("\r\n--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
    // Like most parsers, the reader also takes a bare LF before the boundary as a delimiter.
    byte[] lenient = ("\n--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
    long audioParts = parts.stream().filter(Part::isAudio).count();
    if (audioParts != 1) {
      return false;
    }
    for (Part part : parts) {
      if (part.name().contains("\"") || holdsDelimiter(part.content(), delimiter, lenient)) {
        return false;
      }
      if (part.isAudio()) {
        byte[] note = part.content();
        if (note.length == 0
            || note.length > MAX_AUDIO_BYTES
            || AudioContainer.sniff(note, Math.min(note.length, AudioContainer.SNIFF_BYTES))
                .isEmpty()) {
          return false;
        }
      } else if (part.content().length > MAX_FIELD_CHARS) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether the delimiter occurs in the part before the one that ends it, counting occurrences that
   * start inside the part and run on into its own closing delimiter, and those that start in the
   * line break ending the part's headers (a part whose content begins with {@code --boundary}).
   */
  private static boolean holdsDelimiter(byte[] content, byte[] delimiter, byte[] pattern) {
    byte[] headersEnd = {'\r', '\n'};
    byte[] framed = new byte[headersEnd.length + content.length + delimiter.length];
    System.arraycopy(headersEnd, 0, framed, 0, headersEnd.length);
    System.arraycopy(content, 0, framed, headersEnd.length, content.length);
    System.arraycopy(delimiter, 0, framed, headersEnd.length + content.length, delimiter.length);
    for (int i = 0;
        i < headersEnd.length + content.length && i + pattern.length <= framed.length;
        i++) {
      if (Arrays.equals(framed, i, i + pattern.length, pattern, 0, pattern.length)) {
        return true;
      }
    }
    return false;
  }

  /** Whether the note is a WAV that the shared measurement finds under a millisecond long. */
  private static boolean isEmptyWav(byte[] note) throws IOException {
    return AudioContainer.sniff(note, Math.min(note.length, AudioContainer.SNIFF_BYTES))
            .filter(AudioContainer.WAV::equals)
            .isPresent()
        && AudioDurations.measure(AudioContainer.WAV, SeekableSource.of(note))
            instanceof Measurement.Measured measured
        && measured.millis() == 0;
  }

  private static String bchars(byte[] bytes) {
    StringBuilder boundary = new StringBuilder();
    for (byte b : bytes) {
      boundary.append(BCHARS.charAt(Byte.toUnsignedInt(b) % BCHARS.length()));
    }
    return boundary.toString();
  }

  private static byte[] readAll(SpooledAudio audio) throws IOException {
    try (InputStream in = audio.open()) {
      return in.readAllBytes();
    }
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<Path> spoolFiles() throws IOException {
    if (!Files.isDirectory(SPOOL)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(SPOOL)) {
      return files.toList();
    }
  }

  @AfterAll
  static void removeTheSpool() throws IOException {
    Directories.deleteTree(FOLDER);
  }

  private static Path temporaryFolder() {
    try {
      return Files.createTempDirectory("upload-fuzz-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
