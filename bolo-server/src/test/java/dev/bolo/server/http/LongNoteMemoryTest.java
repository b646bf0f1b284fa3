package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.GatewayProcess;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import okhttp3.MediaType;
import okhttp3.MultipartBody;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.BufferedSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A note longer than the gateway's heap arrives whole by one POST: it streams to the spool while it
 * is hashed, and nothing holds all of it in memory.
 */
class LongNoteMemoryTest {

  /** Over the child gateway's whole heap ({@code -Xmx256m}): a copy of it would not fit. */
  private static final long AUDIO_BYTES = 300_000_000L;

  @TempDir Path dir;

  @Test
  void aNoteLargerThanTheHeapIsReadWholeAndHashedByOnePost() throws Exception {
    try (FakeProvider provider = new FakeProvider();
        GatewayProcess gateway =
            GatewayProcess.start(
                Gateway.openAiEnvironment(provider, dir.resolve("data")),
                dir.resolve("gateway.log"))) {
      // A hash that cannot match: the answer comes once the last byte has been hashed, and no
      // provider call follows.
      Request request =
          new Request.Builder()
              .url(gateway.url("/v1/transcriptions"))
              .header("Authorization", "Bearer " + Gateway.TOKEN_A)
              .header("X-Bolo-Audio-Sha256", "ab".repeat(32))
              .post(
                  new MultipartBody.Builder()
                      .setType(MultipartBody.FORM)
                      .addFormDataPart("audio", "long.wav", silentWav(AUDIO_BYTES))
                      .build())
              .build();
      OkHttpClient client = new OkHttpClient.Builder().readTimeout(60, TimeUnit.SECONDS).build();
      try (Response response = client.newCall(request).execute()) {
        String body = response.body().string();
        assertThat(response.code()).as(body).isEqualTo(400);
        assertThat(new ObjectMapper().readTree(body).get("code").asText())
            .isEqualTo("audio_hash_mismatch");
      }
      assertThat(provider.calls()).isZero();
    }
  }

  /** A 16 kHz mono 16-bit WAV of {@code dataBytes} of silence, written as it is sent. */
  private static RequestBody silentWav(long dataBytes) {
    ByteBuffer header = ByteBuffer.allocate(44).order(ByteOrder.LITTLE_ENDIAN);
    header.put("RIFF".getBytes(StandardCharsets.US_ASCII)).putInt((int) (36 + dataBytes));
    header.put("WAVE".getBytes(StandardCharsets.US_ASCII));
    header.put("fmt ".getBytes(StandardCharsets.US_ASCII)).putInt(16);
    header.putShort((short) 1).putShort((short) 1).putInt(16_000).putInt(32_000);
    header.putShort((short) 2).putShort((short) 16);
    header.put("data".getBytes(StandardCharsets.US_ASCII)).putInt((int) dataBytes);
    byte[] head = header.array();
    return new RequestBody() {
      @Override
      public MediaType contentType() {
        return MediaType.get("audio/wav");
      }

      @Override
      public long contentLength() {
        return head.length + dataBytes;
      }

      @Override
      public void writeTo(BufferedSink sink) throws IOException {
        sink.write(head);
        byte[] chunk = new byte[64 * 1024];
        for (long written = 0; written < dataBytes; written += chunk.length) {
          sink.write(chunk, 0, (int) Math.min(chunk.length, dataBytes - written));
        }
      }
    };
  }
}
