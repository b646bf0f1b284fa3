package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.ClusterExtension;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.TestAudio;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;
import java.util.stream.Stream;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Resumable uploads on two gateway instances that share PostgreSQL (the upload's state) and Redis
 * (the transcripts), each with its own spool: an append routed to the instance without the bytes is
 * refused clearly and stores nothing, the state and the answer are seen from both.
 */
class ResumableMultiInstanceTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final MediaType OCTETS = MediaType.get("application/offset+octet-stream");

  @RegisterExtension final ClusterExtension cluster = new ClusterExtension();
  Gateway owner;
  Gateway other;

  @BeforeEach
  void startTwoInstances() {
    owner = cluster.start("owner");
    other = cluster.start("other");
  }

  @Test
  void anAppendReachingTheInstanceWithoutTheBytesIsRefusedAndTheNoteStaysWhole() throws Exception {
    byte[] note = TestAudio.wav(2000, 51);
    String location = create(owner, note.length);
    assertThat(append(owner, location, 0, Arrays.copyOf(note, 20_000)).code()).isEqualTo(204);

    try (Response misrouted = append(other, location, 20_000, rest(note, 20_000))) {
      assertThat(misrouted.code()).isEqualTo(421);
      assertThat(JSON.readTree(misrouted.body().string()).get("code").asText())
          .isEqualTo("wrong_instance");
    }
    assertThat(filesUnder(cluster.dataDir("other").resolve("spool"))).isZero();
    // The state is shared: both instances tell the same offset.
    assertThat(offset(other, location)).isEqualTo("20000");
    assertThat(offset(owner, location)).isEqualTo("20000");

    assertThat(append(owner, location, 20_000, rest(note, 20_000)).code()).isEqualTo(204);

    // The answer is in Redis and the state in PostgreSQL: either instance can give it.
    Request answer =
        new Request.Builder()
            .url(other.url(location + "/transcription?wait=30"))
            .header("Authorization", "Bearer " + Gateway.TOKEN_A)
            .build();
    try (Response response = other.client().newCall(answer).execute()) {
      String body = response.body().string();
      assertThat(response.code()).as(body).isEqualTo(200);
      JsonNode json = JSON.readTree(body);
      assertThat(json.get("audio_sha256").asText()).isEqualTo(TusUploadTest.sha256(note));
    }
    assertThat(cluster.provider().calls()).isEqualTo(1);
  }

  private static byte[] rest(byte[] note, int from) {
    return Arrays.copyOfRange(note, from, note.length);
  }

  private static String create(Gateway gateway, int length) throws IOException {
    Request request =
        tus(gateway, "/v1/uploads")
            .header("Upload-Length", Integer.toString(length))
            .post(RequestBody.create(new byte[0]))
            .build();
    try (Response response = gateway.client().newCall(request).execute()) {
      assertThat(response.code()).isEqualTo(201);
      return Objects.requireNonNull(response.header("Location"));
    }
  }

  private static Response append(Gateway gateway, String location, long offset, byte[] bytes)
      throws IOException {
    Request request =
        tus(gateway, location)
            .header("Upload-Offset", Long.toString(offset))
            .patch(RequestBody.create(bytes, OCTETS))
            .build();
    return gateway.client().newCall(request).execute();
  }

  private static String offset(Gateway gateway, String location) throws IOException {
    try (Response response =
        gateway.client().newCall(tus(gateway, location).head().build()).execute()) {
      assertThat(response.code()).isEqualTo(200);
      return Objects.requireNonNull(response.header("Upload-Offset"));
    }
  }

  private static Request.Builder tus(Gateway gateway, String path) {
    return new Request.Builder()
        .url(gateway.url(path))
        .header("Authorization", "Bearer " + Gateway.TOKEN_A)
        .header("Tus-Resumable", "1.0.0");
  }

  private static long filesUnder(Path root) throws IOException {
    if (!Files.exists(root)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(Files::isRegularFile).count();
    }
  }
}
