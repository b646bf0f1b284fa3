package dev.bolo.audio;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The audio containers Bolo accepts, recognised from their first bytes rather than from the
 * client's file name or content type, which phones often get wrong.
 */
public enum AudioContainer {
  WAV("audio/wav", "wav"),
  MP3("audio/mpeg", "mp3"),
  MP4("audio/mp4", "m4a"),
  OGG("audio/ogg", "ogg"),
  WEBM("audio/webm", "webm"),
  FLAC("audio/flac", "flac"),
  AAC("audio/aac", "aac");

  /** How many leading bytes {@link #sniff} needs to decide. */
  public static final int SNIFF_BYTES = 12;

  private final String mediaType;
  private final String extension;

  AudioContainer(String mediaType, String extension) {
    this.mediaType = mediaType;
    this.extension = extension;
  }

  /** The IANA media type engines are told, e.g. {@code audio/wav}. */
  public String mediaType() {
    return mediaType;
  }

  /** The usual file extension, without the dot; providers that look at file names see this. */
  public String extension() {
    return extension;
  }

  /**
   * Recognises a container from the first bytes of a file.
   *
   * @param head the first {@link #SNIFF_BYTES} bytes or fewer when the file is shorter
   * @param length how many bytes of {@code head} are valid
   */
  public static Optional<AudioContainer> sniff(byte[] head, int length) {
    if (length >= 12 && ascii(head, 0, "RIFF") && ascii(head, 8, "WAVE")) {
      return Optional.of(WAV);
    }
    if (length >= 8 && ascii(head, 4, "ftyp")) {
      return Optional.of(MP4);
    }
    if (length >= 4 && ascii(head, 0, "OggS")) {
      return Optional.of(OGG);
    }
    if (length >= 4 && ascii(head, 0, "fLaC")) {
      return Optional.of(FLAC);
    }
    // EBML magic; Matroska audio from browsers and phones is WebM in practice.
    if (length >= 4
        && (head[0] & 0xff) == 0x1a
        && (head[1] & 0xff) == 0x45
        && (head[2] & 0xff) == 0xdf
        && (head[3] & 0xff) == 0xa3) {
      return Optional.of(WEBM);
    }
    if (length >= 3 && ascii(head, 0, "ID3")) {
      return Optional.of(MP3);
    }
    if (length >= 2 && (head[0] & 0xff) == 0xff) {
      int second = head[1] & 0xff;
      // ADTS (AAC) sync word: 12 bits set, then layer bits 00.
      if ((second & 0xf6) == 0xf0) {
        return Optional.of(AAC);
      }
      // MPEG audio frame sync: 11 bits set, a valid version and layer III/II/I.
      if ((second & 0xe0) == 0xe0 && (second & 0x18) != 0x08 && (second & 0x06) != 0) {
        return Optional.of(MP3);
      }
    }
    return Optional.empty();
  }

  private static boolean ascii(byte[] bytes, int offset, String expected) {
    byte[] want = expected.getBytes(StandardCharsets.US_ASCII);
    for (int i = 0; i < want.length; i++) {
      if (bytes[offset + i] != want[i]) {
        return false;
      }
    }
    return true;
  }
}
