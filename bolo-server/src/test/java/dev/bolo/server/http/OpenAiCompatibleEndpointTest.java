package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code POST /v1/audio/transcriptions} answers requests shaped byte for byte as the official
 * OpenAI SDKs send them, in OpenAI's response and error shapes.
 */
class OpenAiCompatibleEndpointTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String BOUNDARY = "1f0e7c8c0b5a4a6b9d3e2f1a0b9c8d7e";

  @RegisterExtension final OpenAiGateway fixture = new OpenAiGateway();

  private Gateway gateway() {
    return fixture.gateway();
  }

  private FakeProvider provider() {
    return fixture.provider();
  }

  /**
   * The Python SDK (httpx) sends text fields first, then the file, with its own headers; the Node
   * SDK sends the same parts. Built by hand so the test pins the exact bytes.
   */
  private Request sdkRequest(String token, byte[] audio, String responseFormat) throws IOException {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    textPart(body, "model", "whisper-1");
    textPart(body, "response_format", responseFormat);
    textPart(body, "language", "en");
    write(body, "--" + BOUNDARY + "\r\n");
    write(body, "Content-Disposition: form-data; name=\"file\"; filename=\"memo.wav\"\r\n");
    write(body, "Content-Type: audio/wav\r\n\r\n");
    body.write(audio);
    write(body, "\r\n--" + BOUNDARY + "--\r\n");
    return new Request.Builder()
        .url(gateway().url("/v1/audio/transcriptions"))
        .header("Authorization", "Bearer " + token)
        .header("User-Agent", "OpenAI/Python 1.99.0")
        .header("X-Stainless-Lang", "python")
        .header("X-Stainless-Retry-Count", "0")
        .post(
            RequestBody.create(
                body.toByteArray(), MediaType.get("multipart/form-data; boundary=" + BOUNDARY)))
        .build();
  }

  @Test
  void anOfficialSdkRequestIsAnsweredInOpenAisJsonShape() throws Exception {
    byte[] note = TestAudio.wav(700, 1);
    Gateway.Reply reply = gateway().send(sdkRequest(Gateway.TOKEN_A, note, "json"));
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    JsonNode body = JSON.readTree(reply.body());
    assertThat(body.get("text").asText()).startsWith("transcript of").endsWith("in en");
    assertThat(body.has("deduplicated")).isFalse();
    // No alias stands for whisper-1 here: the model named is the one the provider was sent.
    assertThat(reply.model()).isEqualTo("whisper-1");

    RecordedRequest upstream = provider().takeRequest();
    String sent = FakeProvider.bodyText(upstream);
    assertThat(upstream.getHeaders().get("Authorization")).isEqualTo("Bearer sk-test");
    assertThat(sent).contains("name=\"model\"\r\n\r\nwhisper-1");
    assertThat(sent).contains("filename=\"audio.wav\"");
  }

  @Test
  void aResendThroughTheSdkIsReplayedWithoutAnotherCall() throws Exception {
    byte[] note = TestAudio.wav(700, 2);
    gateway().send(sdkRequest(Gateway.TOKEN_A, note, "json"));
    Gateway.Reply again = gateway().send(sdkRequest(Gateway.TOKEN_A, note, "json"));
    assertThat(again.status()).isEqualTo(200);
    assertThat(again.replayed()).isEqualTo("true");
    assertThat(again.model()).isEqualTo("whisper-1");
    assertThat(provider().calls()).isEqualTo(1);
  }

  @Test
  void everyFormatIsRenderedFromOneVerboseJsonCall() throws Exception {
    provider()
        .enqueue(
            new MockResponse.Builder()
                .code(200)
                .setHeader("Content-Type", "application/json")
                .body(
                    "{\"task\":\"transcribe\",\"language\":\"english\",\"duration\":3.2,"
                        + "\"text\":\"Hello there. See you at four.\",\"segments\":["
                        + "{\"id\":0,\"start\":0.0,\"end\":1.5,\"text\":\" Hello there.\"},"
                        + "{\"id\":1,\"start\":1.75,\"end\":3.2,\"text\":\" See you at four.\"}]}")
                .build());
    byte[] note = TestAudio.wav(700, 3);

    Gateway.Reply json = gateway().send(sdkRequest(Gateway.TOKEN_A, note, "json"));
    Gateway.Reply text = gateway().send(sdkRequest(Gateway.TOKEN_A, note, "text"));
    Gateway.Reply srt = gateway().send(sdkRequest(Gateway.TOKEN_A, note, "srt"));
    Gateway.Reply vtt = gateway().send(sdkRequest(Gateway.TOKEN_A, note, "vtt"));
    Gateway.Reply verbose = gateway().send(sdkRequest(Gateway.TOKEN_A, note, "verbose_json"));

    assertThat(JSON.readTree(json.body()).get("text").asText())
        .isEqualTo("Hello there. See you at four.");
    assertThat(text.body()).isEqualTo("Hello there. See you at four.");
    assertThat(text.contentType()).startsWith("text/plain");
    assertThat(srt.body())
        .isEqualTo(
            "1\n00:00:00,000 --> 00:00:01,500\nHello there.\n\n"
                + "2\n00:00:01,750 --> 00:00:03,200\nSee you at four.\n\n");
    assertThat(srt.contentType()).as("what OpenAI sends").startsWith("text/plain");
    assertThat(vtt.body())
        .isEqualTo(
            "WEBVTT\n\n00:00:00.000 --> 00:00:01.500\nHello there.\n\n"
                + "00:00:01.750 --> 00:00:03.200\nSee you at four.\n\n");
    assertThat(vtt.contentType()).startsWith("text/vtt");
    assertThat(JSON.readTree(verbose.body()).get("segments")).hasSize(2);
    assertThat(List.of(text, srt, vtt, verbose))
        .allSatisfy(reply -> assertThat(reply.replayed()).isEqualTo("true"));
    assertThat(provider().calls()).as("one call for every format").isEqualTo(1);
    assertThat(FakeProvider.bodyText(provider().takeRequest()))
        .contains("name=\"response_format\"\r\n\r\nverbose_json")
        .contains("name=\"timestamp_granularities[]\"\r\n\r\nsegment");
  }

  @Test
  void verboseJsonIsPassedThroughWhole() throws Exception {
    String verbose =
        "{\"task\":\"transcribe\",\"language\":\"english\",\"duration\":0.7,\"text\":\"hi\","
            + "\"segments\":[{\"id\":0,\"start\":0.0,\"end\":0.7,\"text\":\"hi\"}]}";
    provider().enqueue(new MockResponse.Builder().code(200).body(verbose).build());
    Gateway.Reply reply =
        gateway().send(sdkRequest(Gateway.TOKEN_A, TestAudio.wav(700, 4), "verbose_json"));
    assertThat(JSON.readTree(reply.body())).isEqualTo(JSON.readTree(verbose));
    assertThat(FakeProvider.bodyText(provider().takeRequest()))
        .contains("name=\"timestamp_granularities[]\"\r\n\r\nsegment");
  }

  @Test
  void errorsUseOpenAisShape() throws Exception {
    Gateway.Reply reply = gateway().send(sdkRequest("wrong-token", TestAudio.wav(700, 5), "json"));
    assertThat(reply.status()).isEqualTo(401);
    JsonNode error = JSON.readTree(reply.body()).get("error");
    assertThat(error.get("message").asText()).contains("token");
    assertThat(error.get("type").asText()).isEqualTo("authentication_error");
    assertThat(error.get("code").asText()).isEqualTo("unauthorized");
    assertThat(error.has("param")).isTrue();

    Gateway.Reply notAudio =
        gateway()
            .send(
                sdkRequest(Gateway.TOKEN_A, "plain text".getBytes(StandardCharsets.UTF_8), "json"));
    assertThat(notAudio.status()).isEqualTo(415);
    JsonNode unsupported = JSON.readTree(notAudio.body()).get("error");
    assertThat(unsupported.get("param").asText()).isEqualTo("file");
    assertThat(unsupported.get("type").asText()).isEqualTo("invalid_request_error");
  }

  private static void textPart(ByteArrayOutputStream out, String name, String value)
      throws IOException {
    write(out, "--" + BOUNDARY + "\r\n");
    write(out, "Content-Disposition: form-data; name=\"" + name + "\"\r\n\r\n");
    write(out, value + "\r\n");
  }

  private static void write(ByteArrayOutputStream out, String text) throws IOException {
    out.write(text.getBytes(StandardCharsets.UTF_8));
  }
}
