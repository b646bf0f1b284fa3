package dev.bolo.server.engine.moonshine;

import java.util.HexFormat;
import java.util.Locale;

/**
 * One file of the models folder: where it lies in it and the SHA-256 it must have. The hashes are
 * pinned here, not read from {@code models/SHA256SUMS}, so that a file and its listed hash changed
 * together are still refused.
 *
 * @param path relative to the models folder, {@code /}-separated
 * @param sha256 lower-case hex
 */
record ModelFile(String path, String sha256) {

  static final ModelFile ENCODER =
      new ModelFile(
          "moonshine-tiny/encoder_model.onnx",
          "c6fc4b7bc5af75c0591fd157a1f3829b533d18e9769a888fd95a62e470dd4f4a");
  static final ModelFile DECODER =
      new ModelFile(
          "moonshine-tiny/decoder_model_merged.onnx",
          "eed87831c3a6103534aae7d47a5d485025c659a1323901513961c39fe8a1a367");
  static final ModelFile VOCABULARY =
      new ModelFile(
          "moonshine-tiny/vocab.json",
          "2889300ea79ba8b614e279558c98e7027c8845d698532e185233d43c5fcab7b7");
  static final ModelFile VAD =
      new ModelFile(
          "silero-vad/silero_vad_16k_op15.onnx",
          "7ed98ddbad84ccac4cd0aeb3099049280713df825c610a8ed34543318f1b2c49");

  ModelFile {
    if (path.isBlank() || path.startsWith("/") || path.contains("..")) {
      throw new IllegalArgumentException("path must be relative inside the folder: " + path);
    }
    if (sha256.length() != 64 || !sha256.equals(sha256.toLowerCase(Locale.ROOT))) {
      throw new IllegalArgumentException("sha256 must be 64 lower-case hex digits: " + sha256);
    }
    HexFormat.of().parseHex(sha256);
  }
}
