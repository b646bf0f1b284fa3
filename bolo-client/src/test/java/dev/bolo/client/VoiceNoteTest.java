package dev.bolo.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VoiceNoteTest {

  @TempDir Path dir;

  @Test
  void hashIsTheSha256OfTheAudio() {
    VoiceNote note = VoiceNote.ofBytes("abc".getBytes(StandardCharsets.US_ASCII), "note.mp3");

    assertThat(note.sha256())
        .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assertThat(note.durationMs()).isEmpty();
  }

  @Test
  void fileAndBytesOfTheSameWavAgreeOnHashAndDuration() throws Exception {
    byte[] wav = NoteLengthTest.wav(48000, 48000, false);
    Path file = dir.resolve("note.wav");
    Files.write(file, wav);

    VoiceNote fromFile = VoiceNote.ofFile(file);
    VoiceNote fromBytes = VoiceNote.ofBytes(wav, "note.wav");

    assertThat(fromFile.sha256()).isEqualTo(fromBytes.sha256());
    assertThat(fromFile.durationMs()).hasValue(1500);
    assertThat(fromBytes.durationMs()).hasValue(1500);
    assertThat(fromFile.fileName()).isEqualTo("note.wav");
    assertThat(fromFile.size()).isEqualTo(wav.length);
  }

  @Test
  void callerCanGiveTheDuration() {
    VoiceNote note = VoiceNote.ofBytes(new byte[] {1, 2}, "note.m4a").withDurationMs(4200);

    assertThat(note.durationMs()).hasValue(4200);
  }

  @Test
  void emptyAudioIsRejectedBeforeAnyUpload() throws Exception {
    Path empty = Files.createFile(dir.resolve("empty.wav"));

    assertThatIllegalArgumentException()
        .isThrownBy(() -> VoiceNote.ofBytes(new byte[0], "note.wav"))
        .withMessage("audio must not be empty: note.wav");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> VoiceNote.ofFile(empty))
        .withMessage("audio must not be empty: " + empty);
    assertThatIllegalArgumentException()
        .isThrownBy(() -> VoiceNote.ofBytes(new byte[] {1}, "n").withDurationMs(-1))
        .withMessage("durationMs must be >= 0: -1");
  }

  @Test
  void aStreamNoteIsReadOnceForItsHashAndLength() throws Exception {
    byte[] wav = NoteLengthTest.wav(48000, 48000, false);

    VoiceNote note = VoiceNote.ofStream(() -> new java.io.ByteArrayInputStream(wav), "note.wav");

    assertThat(note.sha256()).isEqualTo(VoiceNote.ofBytes(wav, "note.wav").sha256());
    assertThat(note.size()).isEqualTo(wav.length);
    assertThat(note.durationMs()).hasValue(1500);
  }

  @Test
  void aStreamThatIsEmptyMissingOrUnnamedIsRejectedBeforeAnyUpload() {
    assertThatIllegalArgumentException()
        .isThrownBy(
            () -> VoiceNote.ofStream(() -> new java.io.ByteArrayInputStream(new byte[0]), "n.m4a"))
        .withMessage("audio must not be empty: n.m4a");
    org.assertj.core.api.Assertions.assertThatIOException()
        .isThrownBy(() -> VoiceNote.ofStream(() -> null, "n.m4a"))
        .withMessage("the audio opener returned no stream");
    assertThatIllegalArgumentException()
        .isThrownBy(
            () -> VoiceNote.ofStream(() -> new java.io.ByteArrayInputStream(new byte[1]), " "))
        .withMessage("fileName must not be blank: ' '");
  }
}
