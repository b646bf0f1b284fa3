package dev.bolo.server.engine.gemini;

import com.fasterxml.jackson.core.Base64Variants;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
import dev.bolo.audio.AudioContainer;
import dev.bolo.server.upload.AudioContent;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import okhttp3.MediaType;
import okhttp3.RequestBody;
import okio.BufferedSink;

/**
 * A {@code generateContent} request body, written as it is sent: the note's bytes stream from the
 * spool through a Base64 encoder into the socket, so an inline note costs no heap copy.
 *
 * <pre>{@code
 * {"contents": [{"role": "user", "parts": [
 *    {"inline_data": {"mime_type": "audio/wav", "data": "<base64>"}}   or
 *    {"file_data": {"mime_type": "audio/wav", "file_uri": "https://.../files/abc"}},
 *    {"text": "<instruction>"}]}],
 *  "generationConfig": {"temperature": 0}}
 * }</pre>
 *
 * Google's audio guide puts the text after the media part; the body may be written more than once
 * (OkHttp retries a failed connection), each time from a fresh stream.
 */
final class GenerateContentBody extends RequestBody {

  private static final MediaType JSON = MediaType.get("application/json; charset=utf-8");

  /** Field names and punctuation around the base64 data and the instruction. */
  private static final int ENVELOPE_BYTES = 512;

  private static final JsonFactory FACTORY =
      JsonFactory.builder().disable(StreamWriteFeature.AUTO_CLOSE_TARGET).build();

  /** Where the audio is: in the body itself, or already uploaded through the Files API. */
  sealed interface Audio {
    record Inline(AudioContent content) implements Audio {}

    record Uploaded(String fileUri) implements Audio {}
  }

  private final Audio audio;
  private final String mimeType;
  private final String instruction;
  private final BigDecimal temperature;

  GenerateContentBody(Audio audio, String mimeType, String instruction, BigDecimal temperature) {
    this.audio = audio;
    this.mimeType = mimeType;
    this.instruction = instruction;
    this.temperature = temperature;
  }

  /**
   * An upper bound on the size of an inline body: Base64 turns 3 bytes into 4, and JSON escaping at
   * most doubles the instruction's ASCII (non-ASCII stays UTF-8 as is).
   */
  static long inlineSizeBound(long audioBytes, String instruction) {
    long base64 = (audioBytes + 2) / 3 * 4;
    return base64 + 2L * instruction.getBytes(StandardCharsets.UTF_8).length + ENVELOPE_BYTES;
  }

  /**
   * The media type Gemini is told. Its audio guide lists audio/wav, audio/mp3, audio/aiff,
   * audio/aac, audio/ogg and audio/flac; MP3 goes by that name rather than IANA's audio/mpeg. MP4
   * and WebM are not on the list and are sent as what they are, for Gemini to accept or refuse.
   */
  static String mimeType(AudioContainer container) {
    return switch (container) {
      case WAV -> "audio/wav";
      case MP3 -> "audio/mp3";
      case OGG -> "audio/ogg";
      case FLAC -> "audio/flac";
      case AAC -> "audio/aac";
      case MP4, WEBM -> container.mediaType();
    };
  }

  @Override
  public MediaType contentType() {
    return JSON;
  }

  @Override
  public void writeTo(BufferedSink sink) throws IOException {
    try (JsonGenerator out = FACTORY.createGenerator(sink.outputStream())) {
      out.writeStartObject();
      out.writeArrayFieldStart("contents");
      out.writeStartObject();
      out.writeStringField("role", "user");
      out.writeArrayFieldStart("parts");
      writeAudioPart(out);
      out.writeStartObject();
      out.writeStringField("text", instruction);
      out.writeEndObject();
      out.writeEndArray();
      out.writeEndObject();
      out.writeEndArray();
      out.writeObjectFieldStart("generationConfig");
      out.writeNumberField("temperature", temperature);
      out.writeEndObject();
      out.writeEndObject();
    }
  }

  private void writeAudioPart(JsonGenerator out) throws IOException {
    out.writeStartObject();
    switch (audio) {
      case Audio.Inline inline -> {
        out.writeObjectFieldStart("inline_data");
        out.writeStringField("mime_type", mimeType);
        out.writeFieldName("data");
        try (InputStream bytes = inline.content().open()) {
          // Standard alphabet with padding and no line feeds: proto3 JSON's form for bytes.
          out.writeBinary(Base64Variants.MIME_NO_LINEFEEDS, bytes, -1);
        }
      }
      case Audio.Uploaded uploaded -> {
        out.writeObjectFieldStart("file_data");
        out.writeStringField("mime_type", mimeType);
        out.writeStringField("file_uri", uploaded.fileUri());
      }
    }
    out.writeEndObject();
    out.writeEndObject();
  }
}
