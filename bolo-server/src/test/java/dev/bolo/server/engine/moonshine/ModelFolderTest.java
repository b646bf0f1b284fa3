package dev.bolo.server.engine.moonshine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModelFolderTest {

  @TempDir Path copy;

  @Test
  void aModelFileAlteredByOneByteIsRefusedWithAOneLineErrorNamingIt() throws IOException {
    copyModels();
    Path encoder = copy.resolve(ModelFile.ENCODER.path());
    byte[] bytes = Files.readAllBytes(encoder);
    bytes[bytes.length / 2] ^= 1;
    Files.write(encoder, bytes);

    assertThatThrownBy(() -> load(copy))
        .isInstanceOf(ModelFilesException.class)
        .hasMessageStartingWith("model file " + encoder + " is altered: its SHA-256 is ")
        .hasMessageEndingWith(
            ", expected " + ModelFile.ENCODER.sha256() + "; restore models/ from the repository")
        .hasMessageNotContaining("\n");
  }

  @Test
  void aMissingModelFileIsRefusedWithAOneLineErrorNamingIt() throws IOException {
    copyModels();
    Path vad = copy.resolve(ModelFile.VAD.path());
    Files.delete(vad);

    assertThatThrownBy(() -> load(copy))
        .isInstanceOf(ModelFilesException.class)
        .hasMessage("model file " + vad + " is missing; restore models/ from the repository");
  }

  @Test
  void theUnalteredCopyLoads() throws Exception {
    copyModels();

    load(copy).close();
  }

  @Test
  void thePinnedHashesAreTheOnesTheFoldersSha256SumsLists() throws IOException {
    Map<String, String> listed =
        Files.readAllLines(Notes.MODELS.path().resolve("SHA256SUMS")).stream()
            .map(line -> line.split("\\s+\\*?", 2))
            .collect(Collectors.toMap(fields -> fields[1], fields -> fields[0]));

    for (ModelFile file :
        List.of(ModelFile.ENCODER, ModelFile.DECODER, ModelFile.VOCABULARY, ModelFile.VAD)) {
      assertThat(listed).containsEntry(file.path(), file.sha256());
    }
  }

  @Test
  void theFolderIsTheModelsPropertyElseModelsUnderTheHomeElseInTheWorkingDirectory() {
    assertThat(ModelFolder.of("/opt/weights", "/srv/bolo").path())
        .isEqualTo(Path.of("/opt/weights"));
    assertThat(ModelFolder.of(null, "/srv/bolo").path()).isEqualTo(Path.of("/srv/bolo/models"));
    assertThat(ModelFolder.of(" ", null).path()).isEqualTo(Path.of("./models"));
  }

  private static MoonshineRecognizer load(Path folder) {
    return MoonshineRecognizer.load(
        new ModelFolder(folder), MoonshineRecognizer.Options.defaults());
  }

  private void copyModels() throws IOException {
    Path from = Notes.MODELS.path();
    try (Stream<Path> files = Files.walk(from)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        Path to = copy.resolve(from.relativize(file).toString());
        Files.createDirectories(to.getParent());
        Files.copy(file, to);
      }
    }
  }
}
