package dev.bolo.server.audio;

import dev.bolo.audio.AudioContainer;
import dev.bolo.audio.AudioDurations;
import dev.bolo.audio.Measurement;
import dev.bolo.audio.SeekableSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.commons.fileupload2.core.DiskFileItem;
import org.apache.commons.fileupload2.core.DiskFileItemFactory;
import org.apache.commons.fileupload2.core.FileItemInput;
import org.apache.commons.fileupload2.core.FileItemInputIterator;
import org.apache.commons.fileupload2.core.RequestContext;
import org.apache.commons.fileupload2.jakarta.servlet6.JakartaServletFileUpload;
import org.jspecify.annotations.Nullable;

/**
 * Reads a multipart upload as a stream: the audio part is hashed (SHA-256) while its bytes arrive,
 * kept in memory up to a threshold and spooled to a temp file beyond it, and refused as soon as it
 * passes the size limit. There is no second pass over the audio and a large note never sits whole
 * in the heap. Once it has arrived, its length is measured from its container's headers (a few
 * small reads, see {@link AudioDurations}); headers that contradict themselves or the bytes refuse
 * the upload as {@link UploadResult.Reason#INVALID_AUDIO}.
 *
 * <p>Thread safe: one reader serves every request.
 */
public final class UploadReader {

  /** Field names the audio may arrive in: Bolo's own and OpenAI's. */
  private static final List<String> AUDIO_FIELDS = List.of("audio", "file");

  /** Text parts are short settings; a prompt of 16 KiB is already far beyond any provider's. */
  private static final int MAX_FIELD_BYTES = 16 * 1024;

  private static final int MAX_FIELDS = 64;

  /** Enough of the head to recognise the container. */
  private static final int HEAD_BYTES = AudioContainer.SNIFF_BYTES;

  private static final int BUFFER_BYTES = 64 * 1024;

  private final long maxAudioBytes;
  private final int inMemoryBytes;
  private final Path spoolDir;

  /**
   * @param maxAudioBytes the largest accepted note ({@code BOLO_MAX_UPLOAD_BYTES})
   * @param inMemoryBytes notes up to this size stay in memory; larger ones spool to disk
   * @param spoolDir where temp files go; created if missing
   */
  public UploadReader(long maxAudioBytes, int inMemoryBytes, Path spoolDir) {
    if (maxAudioBytes <= 0 || inMemoryBytes < 0) {
      throw new IllegalArgumentException(
          "limits must be positive: maxAudioBytes="
              + maxAudioBytes
              + ", inMemoryBytes="
              + inMemoryBytes);
    }
    this.maxAudioBytes = maxAudioBytes;
    this.inMemoryBytes = inMemoryBytes;
    this.spoolDir = spoolDir;
  }

  /** The largest accepted note in bytes. */
  public long maxAudioBytes() {
    return maxAudioBytes;
  }

  /**
   * Reads one upload. On {@link UploadResult.Invalid} for size or container the rest of the body is
   * left unread; the caller decides how much of it to drain.
   */
  public UploadResult read(@Nullable String contentType, long contentLength, InputStream body)
      throws IOException {
    if (contentType == null
        || !contentType.toLowerCase(java.util.Locale.ROOT).startsWith("multipart/form-data")) {
      return new UploadResult.Invalid(
          UploadResult.Reason.NOT_MULTIPART,
          "expected multipart/form-data with the audio in part 'audio' or 'file', got "
              + (contentType == null ? "no content type" : contentType));
    }
    JakartaServletFileUpload<DiskFileItem, DiskFileItemFactory> parser =
        new JakartaServletFileUpload<>();
    Map<String, List<String>> fields = new LinkedHashMap<>();
    @Nullable SpooledAudio audio = null;
    try {
      FileItemInputIterator items =
          parser.getItemIterator(context(contentType, contentLength, body));
      int count = 0;
      while (items.hasNext()) {
        FileItemInput item = items.next();
        if (++count > MAX_FIELDS) {
          closeQuietly(audio);
          return new UploadResult.Invalid(
              UploadResult.Reason.BAD_FIELD, "more than " + MAX_FIELDS + " parts");
        }
        String name = item.getFieldName() == null ? "" : item.getFieldName();
        if (AUDIO_FIELDS.contains(name) && audio == null) {
          AudioOrProblem read = readAudio(item);
          if (read.problem() != null) {
            return read.problem();
          }
          audio = read.audio();
          continue;
        }
        if (AUDIO_FIELDS.contains(name)) {
          closeQuietly(audio);
          return new UploadResult.Invalid(
              UploadResult.Reason.BAD_FIELD, "more than one audio part; send one note per request");
        }
        Optional<String> value = readField(item);
        if (value.isEmpty()) {
          closeQuietly(audio);
          return new UploadResult.Invalid(
              UploadResult.Reason.BAD_FIELD,
              "part '" + name + "' exceeds " + MAX_FIELD_BYTES + " bytes");
        }
        fields.computeIfAbsent(name, k -> new ArrayList<>()).add(value.get());
      }
    } catch (IOException e) {
      closeQuietly(audio);
      // The client vanished mid-body or sent broken multipart; nothing was transcribed.
      return new UploadResult.Invalid(
          UploadResult.Reason.MALFORMED, "upload incomplete or malformed: " + e.getMessage());
    }
    if (audio == null) {
      return new UploadResult.Invalid(
          UploadResult.Reason.MISSING_AUDIO, "no audio: send the note in part 'audio' or 'file'");
    }
    return new UploadResult.Received(new Upload(audio, fields));
  }

  private record AudioOrProblem(
      @Nullable SpooledAudio audio, UploadResult.@Nullable Invalid problem) {}

  private AudioOrProblem readAudio(FileItemInput item) throws IOException {
    MessageDigest digest = Hashing.sha256();
    byte[] head = new byte[HEAD_BYTES];
    int headLength = 0;
    byte[] memory = new byte[Math.min(inMemoryBytes, BUFFER_BYTES)];
    int memoryLength = 0;
    @Nullable Path file = null;
    @Nullable OutputStream out = null;
    long total = 0;
    boolean sniffed = false;
    AudioContainer container = AudioContainer.WAV;
    byte[] buffer = new byte[BUFFER_BYTES];
    boolean complete = false;
    try (InputStream in = item.getInputStream()) {
      int n;
      while ((n = in.read(buffer)) != -1) {
        if (n == 0) {
          continue;
        }
        total += n;
        if (total > maxAudioBytes) {
          return new AudioOrProblem(
              null,
              new UploadResult.Invalid(
                  UploadResult.Reason.TOO_LARGE, "upload exceeds " + maxAudioBytes + " bytes"));
        }
        digest.update(buffer, 0, n);
        if (headLength < head.length) {
          int copy = Math.min(n, head.length - headLength);
          System.arraycopy(buffer, 0, head, headLength, copy);
          headLength += copy;
        }
        if (!sniffed && headLength >= AudioContainer.SNIFF_BYTES) {
          Optional<AudioContainer> found = AudioContainer.sniff(head, headLength);
          if (found.isEmpty()) {
            return new AudioOrProblem(null, unsupported(head, headLength));
          }
          container = found.get();
          sniffed = true;
        }
        if (out == null && memoryLength + n <= inMemoryBytes) {
          if (memoryLength + n > memory.length) {
            memory =
                Arrays.copyOf(
                    memory, Math.min(inMemoryBytes, Math.max(memory.length * 2, memoryLength + n)));
          }
          System.arraycopy(buffer, 0, memory, memoryLength, n);
          memoryLength += n;
          continue;
        }
        if (out == null) {
          Files.createDirectories(spoolDir);
          file = Files.createTempFile(spoolDir, "upload-", ".audio");
          out = Files.newOutputStream(file);
          out.write(memory, 0, memoryLength);
          memory = new byte[0];
        }
        out.write(buffer, 0, n);
      }
      if (total == 0) {
        return new AudioOrProblem(
            null,
            new UploadResult.Invalid(UploadResult.Reason.EMPTY_AUDIO, "the audio part is empty"));
      }
      if (!sniffed) {
        Optional<AudioContainer> found = AudioContainer.sniff(head, headLength);
        if (found.isEmpty()) {
          return new AudioOrProblem(null, unsupported(head, headLength));
        }
        container = found.get();
      }
      String sha256 = HexFormat.of().formatHex(digest.digest());
      if (out != null) {
        out.close();
        out = null;
      }
      Measurement measurement =
          file != null
              ? measure(container, file)
              : measure(container, SeekableSource.of(memory, memoryLength));
      OptionalLong duration;
      switch (measurement) {
        case Measurement.Measured measured -> duration = OptionalLong.of(measured.millis());
        // The caller falls back on the claim or an estimate from the size.
        case Measurement.Unmeasurable unmeasurable -> duration = OptionalLong.empty();
        case Measurement.Contradicts contradicts -> {
          return new AudioOrProblem(
              null,
              new UploadResult.Invalid(
                  UploadResult.Reason.INVALID_AUDIO,
                  "the "
                      + container.extension()
                      + " note's headers contradict its bytes: "
                      + contradicts.message()));
        }
      }
      SpooledAudio audio =
          file != null
              ? SpooledAudio.inFile(file, total, sha256, container, duration)
              : SpooledAudio.inMemory(
                  Arrays.copyOf(memory, memoryLength), sha256, container, duration);
      complete = true;
      return new AudioOrProblem(audio, null);
    } finally {
      if (out != null) {
        out.close();
      }
      if (!complete && file != null) {
        Files.deleteIfExists(file);
      }
    }
  }

  /**
   * Measures the note's length from its container. Reading the spool file back is the server's
   * business: a failure there is a server fault, never the client's malformed upload.
   */
  private static Measurement measure(AudioContainer container, Path file) {
    try {
      return AudioDurations.measure(container, file);
    } catch (IOException e) {
      throw new UncheckedIOException("could not read back spool file " + file, e);
    }
  }

  private static Measurement measure(AudioContainer container, SeekableSource bytes) {
    try {
      return AudioDurations.measure(container, bytes);
    } catch (IOException e) {
      throw new UncheckedIOException("an in-memory source cannot fail", e);
    }
  }

  private static UploadResult.Invalid unsupported(byte[] head, int length) {
    String magic = HexFormat.of().formatHex(head, 0, Math.min(length, 8));
    return new UploadResult.Invalid(
        UploadResult.Reason.UNSUPPORTED_AUDIO,
        "not a recognised audio container (WAV, MP3, M4A/MP4, OGG/Opus, WebM, FLAC, AAC); first bytes "
            + magic);
  }

  private static Optional<String> readField(FileItemInput item) throws IOException {
    try (InputStream in = item.getInputStream()) {
      byte[] bytes = in.readNBytes(MAX_FIELD_BYTES + 1);
      if (bytes.length > MAX_FIELD_BYTES) {
        return Optional.empty();
      }
      return Optional.of(new String(bytes, StandardCharsets.UTF_8));
    }
  }

  private static void closeQuietly(@Nullable SpooledAudio audio) {
    if (audio != null) {
      audio.close();
    }
  }

  private static RequestContext context(String contentType, long contentLength, InputStream body) {
    return new RequestContext() {
      @Override
      public String getCharacterEncoding() {
        return StandardCharsets.UTF_8.name();
      }

      @Override
      public long getContentLength() {
        return contentLength;
      }

      @Override
      public String getContentType() {
        return contentType;
      }

      @Override
      public InputStream getInputStream() {
        return body;
      }

      @Override
      public boolean isMultipartRelated() {
        return false;
      }
    };
  }
}
