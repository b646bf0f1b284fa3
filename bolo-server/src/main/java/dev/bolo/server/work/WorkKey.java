package dev.bolo.server.work;

import dev.bolo.server.engine.Settings;
import dev.bolo.server.engine.Task;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * Identifies one piece of work: the device, a fingerprint of every output-changing setting and the
 * SHA-256 of the audio that the server computed itself. Nothing the client labels (request id,
 * idempotency key, file name) is part of it.
 *
 * @param device the authenticated device's name
 * @param settingsFingerprint hex SHA-256 of the canonical settings, see {@link #fingerprint}
 * @param audioSha256 lower-case hex SHA-256 of the audio bytes
 */
public record WorkKey(String device, String settingsFingerprint, String audioSha256) {

  private static final HexFormat HEX = HexFormat.of();

  public WorkKey {
    Objects.requireNonNull(device, "device");
    if (!isHexSha256(settingsFingerprint) || !isHexSha256(audioSha256)) {
      throw new IllegalArgumentException(
          "fingerprint and audio hash must be 64 lower-case hex digits: "
              + settingsFingerprint
              + ", "
              + audioSha256);
    }
  }

  /** The key of {@code audioSha256} transcribed with {@code settings} for {@code device}. */
  public static WorkKey of(String device, Settings settings, String audioSha256) {
    return new WorkKey(device, fingerprint(settings), audioSha256);
  }

  /**
   * The key of one piece of a longer note (PROTOCOL.md rule 10): {@code pieceSha256} is the hash of
   * the piece's samples. Its fingerprint is marked as a piece's, so a piece never shares a key with
   * a whole note of the same bytes: a piece's transcript is charged only with its note, and a
   * replay of it as a note of its own would never be charged.
   */
  public static WorkKey ofPiece(String device, Settings settings, String pieceSha256) {
    String marked = "piece\n" + fingerprint(settings);
    return new WorkKey(device, sha256Hex(marked.getBytes(StandardCharsets.UTF_8)), pieceSha256);
  }

  /**
   * Hex SHA-256 over every field of the canonical settings, each named and length-prefixed so no
   * two different settings can produce the same input.
   */
  public static String fingerprint(Settings settings) {
    StringBuilder canonical = new StringBuilder(128);
    field(canonical, "engine", settings.engine());
    field(canonical, "model", settings.model());
    field(canonical, "language", settings.language());
    field(canonical, "prompt", settings.prompt());
    field(canonical, "temperature", settings.temperature());
    field(canonical, "response_format", settings.responseFormat().wireName());
    field(
        canonical, "timestamp_granularities", String.join(",", settings.timestampGranularities()));
    // Only a translation names its task, so every transcription keeps the key it always had (and
    // the transcripts stored under it stay replayable across an upgrade).
    if (settings.task() == Task.TRANSLATE) {
      field(canonical, "task", "translate");
    }
    return sha256Hex(canonical.toString().getBytes(StandardCharsets.UTF_8));
  }

  /**
   * A stable string form for stores and logs. The device name is hashed into it so keys stay short
   * and free of separators whatever a device is called.
   */
  public String asString() {
    String deviceHash = sha256Hex(device.getBytes(StandardCharsets.UTF_8)).substring(0, 16);
    return deviceHash + ":" + settingsFingerprint.substring(0, 32) + ":" + audioSha256;
  }

  private static void field(StringBuilder out, String name, String value) {
    out.append(name).append('=').append(value.length()).append(':').append(value).append('\n');
  }

  private static boolean isHexSha256(String value) {
    return value.length() == 64
        && value.chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
  }

  /** Lower-case hex SHA-256 of {@code bytes}. */
  public static String sha256Hex(byte[] bytes) {
    try {
      return HEX.formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }
}
