package dev.bolo.client;

import java.io.IOException;
import java.io.InputStream;
import okhttp3.MediaType;
import okhttp3.RequestBody;
import okio.BufferedSink;
import org.jspecify.annotations.Nullable;

/**
 * The audio of one upload, or of one append from an offset: streams the note, tells the listener
 * how far it got (counted from the note's first byte), and keeps apart a failure to read the audio
 * from a failure of the network (which OkHttp reports alike). One request's body: it is written at
 * most once.
 */
final class NoteBody extends RequestBody {

  /** Bytes between progress reports: often enough for a progress bar, rarely enough to be cheap. */
  private static final int CHUNK_BYTES = 64 * 1024;

  /** Told how many bytes were handed to the network so far. */
  @FunctionalInterface
  interface Progress {
    void sent(long bytesSent, long bytesTotal);
  }

  private final VoiceNote note;
  private final long offset;
  private final MediaType contentType;
  private final Progress progress;
  private volatile @Nullable IOException readFailure;

  /** The whole note, typed by its file name, as the part of a multipart upload. */
  NoteBody(VoiceNote note, Progress progress) {
    this(note, 0, note.mediaType(), progress);
  }

  /** The note from byte {@code offset} to its end, as {@code contentType}. */
  NoteBody(VoiceNote note, long offset, MediaType contentType, Progress progress) {
    if (offset < 0 || offset > note.size()) {
      throw new IllegalArgumentException("offset must be in [0, " + note.size() + "]: " + offset);
    }
    this.note = note;
    this.offset = offset;
    this.contentType = contentType;
    this.progress = progress;
  }

  @Override
  public MediaType contentType() {
    return contentType;
  }

  @Override
  public long contentLength() {
    return note.size() - offset;
  }

  /** Sending the audio twice in one call would hide an attempt from the resend policy. */
  @Override
  public boolean isOneShot() {
    return true;
  }

  /** Why the audio could not be read during the upload, or null when it could. */
  @Nullable IOException readFailure() {
    return readFailure;
  }

  @Override
  public void writeTo(BufferedSink sink) throws IOException {
    long total = note.size();
    long sent = offset;
    byte[] buffer = new byte[CHUNK_BYTES];
    InputStream in = openOrRecord();
    try {
      skipOrRecord(in, buffer);
      while (sent < total) {
        int n = readOrRecord(in, buffer, (int) Math.min(buffer.length, total - sent));
        if (n < 0) {
          throw recorded(
              new IOException("the audio ended after " + sent + " of " + total + " bytes"));
        }
        sink.write(buffer, 0, n);
        sent += n;
        progress.sent(sent, total);
      }
    } finally {
      in.close();
    }
  }

  private InputStream openOrRecord() throws IOException {
    try {
      return note.open();
    } catch (IOException e) {
      throw recorded(e);
    }
  }

  /**
   * Reads past the bytes the gateway holds already. Reading, not {@code InputStream.skip}: a stream
   * may skip fewer bytes than asked or none (and {@code skipNBytes} is not on every Android).
   */
  private void skipOrRecord(InputStream in, byte[] buffer) throws IOException {
    long skipped = 0;
    while (skipped < offset) {
      int n = readOrRecord(in, buffer, (int) Math.min(buffer.length, offset - skipped));
      if (n < 0) {
        throw recorded(
            new IOException("the audio ended after " + skipped + " of " + note.size() + " bytes"));
      }
      skipped += n;
    }
  }

  private int readOrRecord(InputStream in, byte[] buffer, int length) throws IOException {
    try {
      return in.read(buffer, 0, length);
    } catch (IOException e) {
      throw recorded(e);
    }
  }

  private IOException recorded(IOException e) {
    readFailure = e;
    return e;
  }
}
