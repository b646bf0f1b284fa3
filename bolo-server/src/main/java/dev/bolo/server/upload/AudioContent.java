package dev.bolo.server.upload;

import dev.bolo.audio.AudioContainer;
import java.io.IOException;
import java.io.InputStream;

/**
 * The bytes of one uploaded note, already hashed and checked. Engines read it as many times as they
 * need; the owner of the upload deletes any spool file when the request ends.
 *
 * <p>Implementations are safe to read from several threads at once; each {@link #open()} gives an
 * independent stream.
 */
public interface AudioContent {

  /** Size in bytes. */
  long size();

  /** A fresh stream over the whole note; the caller closes it. */
  InputStream open() throws IOException;

  /** The container recognised from the first bytes. */
  AudioContainer container();

  /** Lower-case hex SHA-256 of the bytes, computed by the server while they arrived. */
  String sha256();

  /**
   * The note for reading at any position, opened now; the caller closes it. Like a stream opened
   * before the upload ends, it stays readable after.
   */
  default SeekableNote openSeekable() throws IOException {
    byte[] bytes = readAllBytes();
    return SeekableNote.of(bytes, bytes.length);
  }

  /** The whole note in memory: for engines that must send it inline. */
  default byte[] readAllBytes() throws IOException {
    try (InputStream in = open()) {
      return in.readAllBytes();
    }
  }
}
