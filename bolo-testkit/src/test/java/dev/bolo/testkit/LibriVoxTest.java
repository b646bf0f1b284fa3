package dev.bolo.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LibriVoxTest {

  @TempDir Path folder;

  @Test
  void eachLineNamesARecordingAndWhatWasSaidInIt() throws IOException {
    Files.writeString(
        folder.resolve("transcription"),
        """
        <s> and mister john dashwood had then leisure </s> (sense_0870)
        <s> he was not an ill disposed young man </s> (sense_0880)

        """);

    assertThat(LibriVox.recordings(folder))
        .containsExactly(
            new LibriVox.Recording(
                "sense_0870",
                folder.resolve("sense_0870.wav"),
                "and mister john dashwood had then leisure"),
            new LibriVox.Recording(
                "sense_0880",
                folder.resolve("sense_0880.wav"),
                "he was not an ill disposed young man"));
  }

  @Test
  void debiansFiveRecordingsAreThere() throws IOException {
    assertThat(LibriVox.recordings())
        .hasSize(5)
        .allSatisfy(recording -> assertThat(recording.wav()).isRegularFile());
  }
}
