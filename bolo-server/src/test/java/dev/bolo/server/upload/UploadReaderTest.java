package dev.bolo.server.upload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.testing.TestAudio;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class UploadReaderTest {

  private static final String BOUNDARY = "----bolo0123456789abcdef";
  private static final String TYPE = "multipart/form-data; boundary=" + BOUNDARY;

  @TempDir Path spool;

  @ParameterizedTest(name = "reads of at most {0} bytes")
  @ValueSource(ints = {1, 2, 3, 7, 41, 1000, 65536})
  void theNoteAndFieldsAreTheSameHoweverTheBodyIsCutIntoReads(int largestRead) throws Exception {
    // Audio bytes that look like the start of a boundary, so a partial match must be given back.
    byte[] note = TestAudio.wav(300, 5);
    byte[] tricky = ("\r\n--" + BOUNDARY.substring(0, 10)).getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(tricky, 0, note, 200, tricky.length);
    byte[] body = body(note, "language", "de", "prompt", "Grüße, Zürich");
    // Small enough to spool the note, to cover both the memory and the file path.
    for (int inMemory : new int[] {1 << 20, 1000}) {
      UploadReader reader = new UploadReader(10 << 20, inMemory, spool, System::nanoTime);
      UploadResult result = reader.read(TYPE, body.length, chopped(body, largestRead, 7));

      assertThat(result).isInstanceOf(UploadResult.Received.class);
      Upload upload = ((UploadResult.Received) result).upload();
      try (SpooledAudio audio = upload.audio()) {
        assertThat(audio.sha256()).isEqualTo(sha256(note));
        assertThat(audio.size()).isEqualTo(note.length);
        assertThat(audio.isSpooled()).isEqualTo(inMemory < note.length);
        try (InputStream in = audio.open()) {
          assertThat(in.readAllBytes()).isEqualTo(note);
        }
      }
      assertThat(upload.fields())
          .containsEntry("language", List.of("de"))
          .containsEntry("prompt", List.of("Grüße, Zürich"));
    }
    assertThat(spoolFiles()).isEmpty();
  }

  @Test
  void aShortBodyIsReadThroughABufferOfItsOwnSizeAndALongOrUnknownOneThrough64KiB() {
    assertThat(MultipartNoteParser.bufferBytes(10_240)).isEqualTo(10_240);
    assertThat(MultipartNoteParser.bufferBytes(100)).isEqualTo(4_096);
    assertThat(MultipartNoteParser.bufferBytes(20_000_000)).isEqualTo(65_536);
    assertThat(MultipartNoteParser.bufferBytes(-1)).isEqualTo(65_536);
  }

  @Test
  void spooledNotesAreWrittenWholeThroughReusedBuffersAndNoneCarriesAnEarlierOnesBytes()
      throws Exception {
    // Seven gather buffers and a part, then one shorter than a buffer, which gets a used one.
    byte[] longNote = TestAudio.wav(60_000, 11);
    byte[] shortNote = TestAudio.wav(3_000, 12);
    assertThat(longNote.length).isGreaterThan(7 * SpoolBuffers.SIZE);
    assertThat(shortNote.length).isLessThan(SpoolBuffers.SIZE);
    UploadReader reader = new UploadReader(10 << 20, 64 * 1024, spool, System::nanoTime);
    for (byte[] note : List.of(longNote, shortNote, longNote)) {
      assertSpooledWhole(reader, note);
    }
    assertThat(spoolFiles()).isEmpty();
  }

  @Test
  void uploadsSpoolingAtOnceNeverShareABuffer() throws Exception {
    UploadReader reader = new UploadReader(10 << 20, 64 * 1024, spool, System::nanoTime);
    List<Callable<Void>> uploads = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      // Each note unlike every other, some shorter than a buffer, some several buffers long.
      byte[] note = TestAudio.wav(i % 3 == 0 ? 3_000 : 20_000 + i * 1_000, 100 + i);
      uploads.add(
          () -> {
            for (int round = 0; round < 3; round++) {
              assertSpooledWhole(reader, note);
            }
            return null;
          });
    }
    try (ExecutorService phones = Executors.newVirtualThreadPerTaskExecutor()) {
      for (Future<Void> upload : phones.invokeAll(uploads)) {
        upload.get();
      }
    }
    assertThat(spoolFiles()).isEmpty();
  }

  private static void assertSpooledWhole(UploadReader reader, byte[] note) throws Exception {
    byte[] body = body(note, "language", "de");
    UploadResult result = reader.read(TYPE, body.length, chopped(body, 7777, note.length));

    assertThat(result).isInstanceOf(UploadResult.Received.class);
    try (SpooledAudio audio = ((UploadResult.Received) result).upload().audio();
        InputStream in = audio.open()) {
      assertThat(audio.isSpooled()).isTrue();
      assertThat(audio.sha256()).isEqualTo(sha256(note));
      assertThat(in.readAllBytes()).isEqualTo(note);
    }
  }

  @Test
  void aBodyCutOffBeforeItsClosingBoundaryIsMalformedAndLeavesNoSpoolFile() throws Exception {
    byte[] body = body(TestAudio.wav(500, 1), "language", "en");
    byte[] cut = java.util.Arrays.copyOf(body, body.length - 20);
    UploadReader reader = new UploadReader(10 << 20, 100, spool, System::nanoTime);

    UploadResult result = reader.read(TYPE, cut.length, chopped(cut, 4096, 3));

    assertThat(result)
        .isInstanceOfSatisfying(
            UploadResult.Invalid.class,
            invalid -> assertThat(invalid.reason()).isEqualTo(UploadResult.Reason.MALFORMED));
    assertThat(spoolFiles()).isEmpty();
  }

  @Test
  void aWavWhoseDataChunkHoldsUnderAMillisecondIsEmptyEvenWithMoreChunksAfterIt() throws Exception {
    // RIFF allows chunks after the data chunk (LIST, id3): the note is the 14 samples, 0.875 ms
    // at 16 kHz, and the bytes that follow are not audio. Found by fuzzing.
    byte[] fourteenSamples = java.util.Arrays.copyOf(TestAudio.wav(0, 1), 44 + 28);
    ByteBuffer.wrap(fourteenSamples, 40, 4).order(ByteOrder.LITTLE_ENDIAN).putInt(28);
    byte[] list = concat("LIST".getBytes(StandardCharsets.US_ASCII), new byte[] {64, 0, 0, 0});
    byte[] note = concat(fourteenSamples, list, new byte[64]);
    UploadReader reader = new UploadReader(10 << 20, 1 << 20, spool, System::nanoTime);

    UploadResult result = reader.read(TYPE, -1, new ByteArrayInputStream(body(note)));

    assertThat(reason(result)).isEqualTo(UploadResult.Reason.EMPTY_AUDIO);
    assertThat(spoolFiles()).isEmpty();
  }

  @Test
  void anOversizedNoteIsRefusedBeforeItIsAllReadAndLeavesNoSpoolFile() throws Exception {
    byte[] body = body(TestAudio.wav(5_000, 1), "language", "en");
    UploadReader reader = new UploadReader(50_000, 1_000, spool, System::nanoTime);
    CountingStream counted = new CountingStream(chopped(body, 8192, 11));

    UploadResult result = reader.read(TYPE, body.length, counted);

    assertThat(result)
        .isInstanceOfSatisfying(
            UploadResult.Invalid.class,
            invalid -> assertThat(invalid.reason()).isEqualTo(UploadResult.Reason.TOO_LARGE));
    assertThat(counted.read).isLessThan(body.length);
    assertThat(spoolFiles()).isEmpty();
  }

  @Test
  void partsBeyondTheLimitsAreRefusedAsBadFields() throws Exception {
    UploadReader reader = new UploadReader(10 << 20, 1 << 20, spool, System::nanoTime);
    byte[] longField = body(TestAudio.wav(100, 1), "prompt", "x".repeat(16 * 1024 + 1));
    byte[] twoNotes =
        concat(
            part("audio", TestAudio.wav(100, 1)),
            part("file", TestAudio.wav(100, 2)),
            ("--" + BOUNDARY + "--\r\n").getBytes(StandardCharsets.US_ASCII));

    assertThat(reason(reader.read(TYPE, -1, new java.io.ByteArrayInputStream(longField))))
        .isEqualTo(UploadResult.Reason.BAD_FIELD);
    assertThat(reason(reader.read(TYPE, -1, new java.io.ByteArrayInputStream(twoNotes))))
        .isEqualTo(UploadResult.Reason.BAD_FIELD);
    assertThat(spoolFiles()).isEmpty();
  }

  @Test
  void aMissingOrAbsurdBoundaryIsMalformedAndNoAudioIsMissingAudio() throws Exception {
    UploadReader reader = new UploadReader(10 << 20, 1 << 20, spool, System::nanoTime);
    byte[] fieldsOnly =
        concat(
            ("--"
                    + BOUNDARY
                    + "\r\nContent-Disposition: form-data; name=\"language\"\r\n\r\nen\r\n")
                .getBytes(StandardCharsets.UTF_8),
            ("--" + BOUNDARY + "--\r\n").getBytes(StandardCharsets.US_ASCII));

    assertThat(reason(reader.read("multipart/form-data", -1, InputStream.nullInputStream())))
        .isEqualTo(UploadResult.Reason.MALFORMED);
    assertThat(
            reason(
                reader.read(
                    "multipart/form-data; boundary=" + "b".repeat(71),
                    -1,
                    InputStream.nullInputStream())))
        .isEqualTo(UploadResult.Reason.MALFORMED);
    assertThat(reason(reader.read(TYPE, -1, new java.io.ByteArrayInputStream(fieldsOnly))))
        .isEqualTo(UploadResult.Reason.MISSING_AUDIO);
    assertThat(
            reason(
                reader.read(
                    "multipart/form-data; boundary=\"unterminated",
                    -1,
                    InputStream.nullInputStream())))
        .isEqualTo(UploadResult.Reason.MALFORMED);
  }

  @Test
  void theBodyRateGuardStillEndsASilentUpload() throws Exception {
    long[] now = {0};
    UploadReader reader =
        new UploadReader(
            10 << 20,
            1 << 20,
            spool,
            new UploadReader.Bounds(4, 4, 1 << 30, 1024, Duration.ofSeconds(10)),
            () -> now[0]);
    byte[] body = body(TestAudio.wav(500, 1), "language", "en");
    InputStream stalls =
        new FilterInputStream(new java.io.ByteArrayInputStream(body, 0, 100)) {
          @Override
          public int read(byte[] b, int off, int len) throws IOException {
            now[0] += Duration.ofSeconds(11).toNanos();
            return super.read(b, off, Math.min(len, 10));
          }
        };

    assertThat(reason(reader.read(TYPE, body.length, stalls)))
        .isEqualTo(UploadResult.Reason.TOO_SLOW);
  }

  @Test
  void oneDeviceSendsAtMostItsShareOfBodiesAtOnceAndOthersAreNotHeldUp() throws Exception {
    UploadReader reader =
        new UploadReader(
            10 << 20,
            1 << 20,
            spool,
            new UploadReader.Bounds(8, 2, 1 << 30, 1, Duration.ofMinutes(1)),
            System::nanoTime);
    byte[] body = body(TestAudio.wav(200, 3), "language", "en");
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch reading = new java.util.concurrent.CountDownLatch(2);
    try (var threads = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
      List<java.util.concurrent.Future<UploadResult>> held = new java.util.ArrayList<>();
      for (int i = 0; i < 2; i++) {
        held.add(
            threads.submit(
                () -> reader.read("attacker", TYPE, -1, stalled(body, reading, release))));
      }
      reading.await();

      assertThat(
              reason(
                  reader.read(
                      "attacker", TYPE, body.length, new java.io.ByteArrayInputStream(body))))
          .isEqualTo(UploadResult.Reason.DEVICE_BUSY);
      UploadResult other =
          reader.read("phone", TYPE, body.length, new java.io.ByteArrayInputStream(body));
      assertThat(other).isInstanceOf(UploadResult.Received.class);
      ((UploadResult.Received) other).upload().audio().close();

      release.countDown();
      for (var upload : held) {
        UploadResult done = upload.get();
        assertThat(done).isInstanceOf(UploadResult.Received.class);
        ((UploadResult.Received) done).upload().audio().close();
      }
    }
    UploadResult afterwards =
        reader.read("attacker", TYPE, body.length, new java.io.ByteArrayInputStream(body));
    assertThat(afterwards)
        .as("the device's slots are given back")
        .isInstanceOf(UploadResult.Received.class);
    ((UploadResult.Received) afterwards).upload().audio().close();
  }

  /** The body's first bytes, then nothing until {@code release}. */
  private static InputStream stalled(
      byte[] body,
      java.util.concurrent.CountDownLatch reading,
      java.util.concurrent.CountDownLatch release) {
    return new FilterInputStream(new java.io.ByteArrayInputStream(body)) {
      private boolean first = true;

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        if (first) {
          first = false;
          reading.countDown();
          return super.read(b, off, Math.min(len, 100));
        }
        try {
          release.await();
        } catch (InterruptedException e) {
          throw new java.io.InterruptedIOException();
        }
        return super.read(b, off, len);
      }
    };
  }

  private static UploadResult.Reason reason(UploadResult result) {
    assertThat(result).isInstanceOf(UploadResult.Invalid.class);
    return ((UploadResult.Invalid) result).reason();
  }

  private List<Path> spoolFiles() throws IOException {
    if (!Files.exists(spool)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(spool)) {
      return files.toList();
    }
  }

  private static byte[] body(byte[] note, String... fields) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < fields.length; i += 2) {
      out.writeBytes(
          ("--"
                  + BOUNDARY
                  + "\r\nContent-Disposition: form-data; name=\""
                  + fields[i]
                  + "\"\r\n\r\n"
                  + fields[i + 1]
                  + "\r\n")
              .getBytes(StandardCharsets.UTF_8));
    }
    out.writeBytes(part("audio", note));
    out.writeBytes(("--" + BOUNDARY + "--\r\n").getBytes(StandardCharsets.US_ASCII));
    return out.toByteArray();
  }

  private static byte[] part(String name, byte[] note) {
    return concat(
        ("--"
                + BOUNDARY
                + "\r\nContent-Disposition: form-data; name=\""
                + name
                + "\"; filename=\"n.wav\"\r\nContent-Type: audio/wav\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII),
        note,
        "\r\n".getBytes(StandardCharsets.US_ASCII));
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }

  /** Hands out the body in reads of 1 to {@code largest} bytes, in a seeded random pattern. */
  private static InputStream chopped(byte[] body, int largest, long seed) {
    Random random = new Random(seed);
    return new FilterInputStream(new java.io.ByteArrayInputStream(body)) {
      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        return super.read(b, off, Math.min(len, 1 + random.nextInt(largest)));
      }
    };
  }

  private static String sha256(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }

  private static final class CountingStream extends FilterInputStream {
    long read;

    CountingStream(InputStream in) {
      super(in);
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = super.read(b, off, len);
      if (n > 0) {
        read += n;
      }
      return n;
    }
  }
}
