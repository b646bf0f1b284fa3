package dev.bolo.server.upload;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.MultiPart;
import org.eclipse.jetty.io.Content;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A note's multipart/form-data body, parsed as it streams in (Jetty's {@link MultiPart.Parser}):
 * the audio part flows into an {@link AudioSink}, which hashes it and keeps it in memory or in the
 * spool; the short text parts become fields. The first reason to refuse the body ends it: no
 * multipart, no boundary, too many or too long parts, a second audio part, audio too large or not
 * audio, a full or failing spool, a body that broke off or arrived too slowly.
 *
 * <p>Thread safe: each {@link #parse} keeps its state on its own.
 */
final class MultipartNoteParser {

  private static final Logger log = LoggerFactory.getLogger(MultipartNoteParser.class);

  /** Field names the audio may arrive in: Bolo's own and OpenAI's. */
  private static final List<String> AUDIO_FIELDS = List.of("audio", "file");

  /** Text parts are short settings; a prompt of 16 KiB is already far beyond any provider's. */
  private static final int MAX_FIELD_BYTES = 16 * 1024;

  private static final int MAX_FIELDS = 64;

  /** The boundary parameter's name, in any case. */
  private static final java.util.regex.Pattern BOUNDARY_PARAMETER =
      java.util.regex.Pattern.compile("(?i)(;\\s*)boundary=");

  /** RFC 2046: a boundary is 1 to 70 characters. */
  private static final int MAX_BOUNDARY_CHARS = 70;

  /** All headers of one part together: a name, a file name and a type need far less. */
  private static final int MAX_PART_HEADER_BYTES = 512;

  private static final int BUFFER_BYTES = TransferBuffers.SIZE;
  private static final int MIN_BUFFER_BYTES = 4 * 1024;

  private final AudioSink.Config sinks;
  private final TransferBuffers buffers;
  private final long minBytesPerSecond;
  private final Duration rateWindow;

  /**
   * @param sinks where the audio part goes: its size limit, memory, spool and spool budget
   * @param buffers the arrays a body is read into
   * @param minBytesPerSecond the slowest accepted body, for the words of a refusal
   * @param rateWindow the window the rate is averaged over, for the same words
   */
  MultipartNoteParser(
      AudioSink.Config sinks,
      TransferBuffers buffers,
      long minBytesPerSecond,
      Duration rateWindow) {
    this.sinks = sinks;
    this.buffers = buffers;
    this.minBytesPerSecond = minBytesPerSecond;
    this.rateWindow = rateWindow;
  }

  /**
   * Reads one multipart body to its end, or to the first reason to refuse it; on {@link
   * UploadResult.Invalid} for size or container the rest of the body is left unread.
   */
  UploadResult parse(@Nullable String contentType, long contentLength, InputStream body)
      throws IOException {
    if (contentType == null
        || !contentType.toLowerCase(Locale.ROOT).startsWith("multipart/form-data")) {
      return new UploadResult.Invalid(
          UploadResult.Reason.NOT_MULTIPART,
          "expected multipart/form-data with the audio in part 'audio' or 'file', got "
              + (contentType == null ? "no content type" : contentType));
    }
    @Nullable String boundary;
    try {
      // Parameter names are case-insensitive (RFC 2045); Jetty looks for "boundary" only.
      boundary =
          MultiPart.extractBoundary(
              BOUNDARY_PARAMETER.matcher(contentType).replaceFirst("$1boundary="));
    } catch (IllegalArgumentException e) {
      // A broken parameter list, such as an unterminated quote: the client's malformed header.
      boundary = null;
    }
    if (boundary == null || boundary.isEmpty() || boundary.length() > MAX_BOUNDARY_CHARS) {
      return new UploadResult.Invalid(
          UploadResult.Reason.MALFORMED,
          "multipart/form-data needs a boundary of 1 to " + MAX_BOUNDARY_CHARS + " characters");
    }
    try (Parts parts = new Parts(contentLength)) {
      MultiPart.Parser parser = new MultiPart.Parser(boundary, parts);
      parser.setPartHeadersMaxLength(MAX_PART_HEADER_BYTES);
      // The parser hands every piece of content to the listener before parse returns, and the
      // listener copies it, so one buffer serves the whole body; a whole-size one is reused.
      int size = bufferBytes(contentLength);
      byte[] buffer = size == TransferBuffers.SIZE ? buffers.take() : new byte[size];
      try {
        while (parts.result() == null) {
          int n = body.read(buffer);
          if (n == -1) {
            parser.parse(Content.Chunk.EOF);
            break;
          }
          if (n > 0) {
            parser.parse(Content.Chunk.from(ByteBuffer.wrap(buffer, 0, n), false));
          }
        }
      } catch (IOException e) {
        if (tooSlow(e)) {
          log.info("upload too slow: {}", e.toString());
          return new UploadResult.Invalid(
              UploadResult.Reason.TOO_SLOW,
              "the upload arrived slower than "
                  + minBytesPerSecond
                  + " bytes per second over "
                  + rateWindow.toMillis()
                  + " ms, or stopped; resend on a better connection");
        }
        // The client vanished mid-body; nothing was transcribed.
        log.info("upload incomplete: {}", e.toString());
        return malformed();
      }
      // Only a read that ended without throwing gives the buffer back; one that threw drops it.
      if (buffer.length == TransferBuffers.SIZE) {
        buffers.give(buffer);
      }
      UploadResult result = parts.result();
      return result != null ? parts.handOver(result) : malformed();
    }
  }

  /**
   * The read buffer for a body of the declared length (-1: unknown): a short note does not need the
   * whole 64 KiB, which thousands of uploads in flight would otherwise hold at once.
   */
  static int bufferBytes(long contentLength) {
    if (contentLength < 0) {
      return BUFFER_BYTES;
    }
    return (int) Math.clamp(contentLength, MIN_BUFFER_BYTES, BUFFER_BYTES);
  }

  /** The body broke off or is not well-formed multipart: the client's fault. */
  static UploadResult.Invalid malformed() {
    return new UploadResult.Invalid(
        UploadResult.Reason.MALFORMED,
        "upload incomplete or malformed multipart/form-data; nothing was transcribed");
  }

  /**
   * The parts of one upload as the parser finds them: the audio part into an {@link AudioSink},
   * short text parts into fields. The first refusal ends the upload ({@link #result}); closing
   * discards a note that was not handed over.
   */
  private final class Parts extends MultiPart.AbstractPartsListener implements AutoCloseable {
    private final long contentLength;
    private final Map<String, List<String>> fields = new LinkedHashMap<>();
    private int count;
    private String name = "";
    private @Nullable AudioSink sink;
    private @Nullable SpooledAudio audio;
    private byte[] field = new byte[256];
    private int fieldLength;
    private @Nullable UploadResult result;

    Parts(long contentLength) {
      this.contentLength = contentLength;
    }

    @Nullable UploadResult result() {
      return result;
    }

    /** The final result; the note in it now belongs to the caller. */
    UploadResult handOver(UploadResult finalResult) {
      audio = null;
      return finalResult;
    }

    private void refuse(UploadResult.Invalid why) {
      if (result == null) {
        result = why;
        close();
      }
    }

    @Override
    public void onPartBegin() {
      if (++count > MAX_FIELDS) {
        refuse(
            new UploadResult.Invalid(
                UploadResult.Reason.BAD_FIELD, "more than " + MAX_FIELDS + " parts"));
      }
    }

    @Override
    public void onPartHeaders() {
      if (result != null) {
        return;
      }
      name = Objects.requireNonNullElse(getName(), "");
      fieldLength = 0;
      if (AUDIO_FIELDS.contains(name)) {
        if (audio != null) {
          refuse(
              new UploadResult.Invalid(
                  UploadResult.Reason.BAD_FIELD,
                  "more than one audio part; send one note per request"));
          return;
        }
        sink = sinks.open(contentLength);
      }
    }

    @Override
    public void onPartContent(Content.Chunk chunk) {
      try {
        if (result != null) {
          return;
        }
        ByteBuffer bytes = chunk.getByteBuffer();
        AudioSink to = sink;
        if (to != null) {
          UploadResult.@Nullable Invalid refused = to.write(bytes);
          if (refused != null) {
            refuse(refused);
          }
          return;
        }
        int n = bytes.remaining();
        if (fieldLength + n > MAX_FIELD_BYTES) {
          refuse(
              new UploadResult.Invalid(
                  UploadResult.Reason.BAD_FIELD,
                  "part '" + name + "' exceeds " + MAX_FIELD_BYTES + " bytes"));
          return;
        }
        if (fieldLength + n > field.length) {
          field =
              Arrays.copyOf(
                  field, Math.min(MAX_FIELD_BYTES, Math.max(field.length * 2, fieldLength + n)));
        }
        bytes.get(field, fieldLength, n);
        fieldLength += n;
      } catch (AudioSink.SpoolFailure e) {
        spoolFailed(e);
      } catch (AudioSink.SpoolFull e) {
        log.warn("spool full: {}", sinks.spool());
        refuse(
            new UploadResult.Invalid(
                UploadResult.Reason.SPOOL_FULL,
                "the gateway is holding too many uploads; resend shortly"));
      }
      // Not released here: the parser releases the chunks it makes itself, and none of them
      // holds pooled memory (they wrap this upload's own buffer).
    }

    private void spoolFailed(AudioSink.SpoolFailure e) {
      // The server's disk, not the phone: a resend may succeed. The path stays in the log.
      log.error("cannot spool an upload: {}", e.getMessage(), e.getCause());
      refuse(
          new UploadResult.Invalid(
              UploadResult.Reason.SPOOL_FAILED,
              "the gateway cannot store uploads right now; resend shortly"));
    }

    @Override
    public void onPartEnd() {
      super.onPartEnd();
      if (result != null) {
        return;
      }
      AudioSink finished = sink;
      if (finished != null) {
        sink = null;
        try {
          switch (finished.finish()) {
            case AudioSink.Finished.Note note -> audio = note.audio();
            case AudioSink.Finished.UnusableAudio unusable -> {
              finished.close();
              refuse(unusable.why());
            }
          }
        } catch (AudioSink.SpoolFailure e) {
          finished.close();
          spoolFailed(e);
        }
        return;
      }
      fields
          .computeIfAbsent(name, k -> new ArrayList<>())
          .add(new String(field, 0, fieldLength, StandardCharsets.UTF_8));
    }

    @Override
    public void onPart(String name, @Nullable String fileName, HttpFields headers) {
      // Each part was taken as it streamed in: see onPartContent and onPartEnd.
    }

    @Override
    public void onComplete() {
      if (result != null) {
        return;
      }
      SpooledAudio note = audio;
      result =
          note == null
              ? new UploadResult.Invalid(
                  UploadResult.Reason.MISSING_AUDIO,
                  "no audio: send the note in part 'audio' or 'file'")
              : new UploadResult.Received(new Upload(note, fields));
    }

    @Override
    public void onFailure(Throwable failure) {
      log.info("malformed multipart upload: {}", failure.toString());
      refuse(malformed());
    }

    /** Discards a note still being read or not handed over. */
    @Override
    public void close() {
      AudioSink open = sink;
      if (open != null) {
        open.close();
        sink = null;
      }
      SpooledAudio note = audio;
      if (note != null) {
        note.close();
        audio = null;
      }
    }
  }

  /** Whether a read failed for time: the rate guard, or Jetty's idle timeout on a silent body. */
  static boolean tooSlow(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof MinimumRateInputStream.TooSlowException
          || t instanceof java.util.concurrent.TimeoutException
          || t instanceof java.net.SocketTimeoutException) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }
}
