package dev.bolo.decode;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.audio.SeekableSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FlacWriterTest {

  @Test
  void whatIsWrittenIsDecodedSampleForSampleInAboutHalfAWavsBytes(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("piece.flac");
    Random noise = new Random(7);
    short[] speechLike = new short[16_000 * 5 + 123];
    for (int n = 0; n < speechLike.length; n++) {
      speechLike[n] =
          (short)
              Math.round(
                  6000 * Math.sin(2 * Math.PI * 220 * n / 16_000) + noise.nextGaussian() * 50);
    }
    try (FlacWriter writer = FlacWriter.create(file, 16_000)) {
      // In uneven stretches, as a note's pieces arrive.
      writer.write(speechLike, 1000);
      writer.write(
          java.util.Arrays.copyOfRange(speechLike, 1000, speechLike.length),
          speechLike.length - 1000);
      writer.finish();
    }

    byte[] flac = Files.readAllBytes(file);
    assertThat(new String(flac, 0, 4, java.nio.charset.StandardCharsets.US_ASCII))
        .isEqualTo("fLaC");
    assertThat(flac.length).isLessThan(speechLike.length * 2 * 6 / 10);
    float[] decoded = new float[speechLike.length + 16];
    int count = 0;
    try (PcmDecoder decoder = PcmDecoder.open(SeekableSource.of(flac, flac.length), 16_000)) {
      int n;
      while ((n = decoder.read(decoded, count, decoded.length - count)) > 0) {
        count += n;
      }
    }
    assertThat(count).isEqualTo(speechLike.length);
    for (int n = 0; n < count; n++) {
      assertThat(Math.round(decoded[n] * 32768)).as("sample %d", n).isEqualTo((int) speechLike[n]);
    }
  }
}
