package dev.bolo.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.testkit.CleanText;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** What becomes of text on its way into a message a client may be shown. */
class ClientTextTest {

  @Test
  void aNativeBuffersBytesAfterItsWordsBecomePrintableTextWithoutNulOrControls() {
    String buffer =
        "Invalid data found when processing input\u0000java/lang/String;\u0001\u0002\u007f"
            + "\u0085\uFFFD\uD800Ljava/lang/invoke/";

    String clean = ClientText.clean(buffer, ClientText.MOST_CHARS);

    assertThat(clean)
        .isEqualTo("Invalid data found when processing input java/lang/String; Ljava/lang/invoke/");
    CleanText.check(clean);
  }

  @Test
  void lineBreaksAndInvisibleCharactersCannotForgeALineOrHideText() {
    String forged = " a\r\nb\tc\u202Ed\u2028e\u200Bf\u2066g\uE000h ";

    assertThat(ClientText.clean(forged, 100)).isEqualTo("a b c d e f g h");
  }

  @Test
  void nothingPrintableLeavesNothing() {
    assertThat(ClientText.clean("\u0000\u0001 \n\uFFFD", 100)).isEmpty();
  }

  @Test
  void aLongTextIsCutToItsBoundBetweenWholeCharactersWithAnEllipsis() {
    String faces = "\uD83D\uDE00".repeat(600);

    String clean = ClientText.clean(faces, 1000);

    assertThat(clean).hasSizeLessThanOrEqualTo(1000).endsWith("…");
    CleanText.check(clean);
    assertThat(ClientText.clean("a".repeat(1000), 1000)).isEqualTo("a".repeat(1000));
    assertThat(ClientText.clean("a".repeat(1001), 1000)).isEqualTo("a".repeat(999) + "…");
  }

  @Test
  void aClientsValueIsShownUpToItsLengthThenAnEllipsis() {
    assertThat(ClientText.shown("verbose_jsonx", 16)).isEqualTo("verbose_jsonx");
    assertThat(ClientText.shown("abcdefghijklmnopqrstuvwxyz", 16)).isEqualTo("abcdefghijklmnop…");
    assertThat(ClientText.shown("en\u0000\u001b[2J", 16)).isEqualTo("en [2J");
  }

  @Test
  void anyBytesReadAsTextComeOutClean() {
    Random random = new Random(11);
    for (int i = 0; i < 2_000; i++) {
      byte[] bytes = new byte[random.nextInt(3000)];
      random.nextBytes(bytes);
      String clean = ClientText.clean(new String(bytes, StandardCharsets.UTF_8), 1000);
      if (!clean.isEmpty()) {
        CleanText.check(clean);
      }
      String chars =
          random
              .ints(random.nextInt(1500), 0, 0x110000)
              .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append)
              .toString();
      clean = ClientText.clean(chars, 1000);
      if (!clean.isEmpty()) {
        CleanText.check(clean);
      }
    }
  }
}
