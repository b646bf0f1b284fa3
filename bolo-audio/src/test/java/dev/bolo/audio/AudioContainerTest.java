package dev.bolo.audio;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AudioContainerTest {

  @ParameterizedTest
  @CsvSource({
    "52494646240000005741564566, WAV",
    "494433040000000000000000, MP3",
    "fffb90440000000000000000, MP3",
    "0000002066747970 4d3441200000, MP4",
    "4f6767530002000000000000, OGG",
    "1a45dfa3a34286810142f781, WEBM",
    "664c614300000022 10001000, FLAC",
    "fff15080 2dfffc21 00000000, AAC",
  })
  void containersAreRecognisedFromTheirFirstBytes(String hex, AudioContainer expected) {
    byte[] head = HexFormat.of().parseHex(hex.replace(" ", ""));
    assertThat(AudioContainer.sniff(head, head.length)).contains(expected);
  }

  @Test
  void textAndImagesAreNotAudio() {
    byte[] text = "hello, world".getBytes(StandardCharsets.US_ASCII);
    byte[] png = HexFormat.of().parseHex("89504e470d0a1a0a0000000d");
    assertThat(AudioContainer.sniff(text, text.length)).isEqualTo(Optional.empty());
    assertThat(AudioContainer.sniff(png, png.length)).isEqualTo(Optional.empty());
  }
}
