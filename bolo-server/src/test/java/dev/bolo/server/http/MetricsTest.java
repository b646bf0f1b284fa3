package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.App;
import dev.bolo.server.config.ServerConfig;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.testing.AnsweringEngine;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.testkit.Await;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import okhttp3.MediaType;
import okhttp3.MultipartBody;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What {@code /metrics} tells an operator: every answer, replays by kind, buckets, help text. */
class MetricsTest {

  @RegisterExtension final OpenAiGateway fixture = OpenAiGateway.onDemand(Map.of());

  @Test
  void everyAnswerIsCountedByEndpointStatusAndOutcomeIncludingRefusalsBeforeAnyWork()
      throws Exception {
    FakeProvider provider = fixture.provider();
    Gateway gateway = fixture.start(Map.of("BOLO_MAX_UPLOAD_BYTES", "100000"));
    byte[] note = TestAudio.wav(300, 1);
    assertThat(gateway.send(gateway.nativeUpload(null, note)).status()).isEqualTo(401);
    assertThat(gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, new byte[1_300_000])).status())
        .isEqualTo(413);
    Request text =
        new Request.Builder()
            .url(gateway.url("/v1/audio/transcriptions"))
            .header("Authorization", "Bearer " + Gateway.TOKEN_A)
            .post(
                new MultipartBody.Builder()
                    .setType(MultipartBody.FORM)
                    .addFormDataPart(
                        "file",
                        "note.txt",
                        RequestBody.create(
                            "not audio at all, just words".repeat(10), MediaType.get("text/plain")))
                    .build())
            .build();
    assertThat(gateway.send(text).status()).isEqualTo(415);
    assertThat(gateway.send(get(gateway, "/no/such/path")).status()).isEqualTo(404);
    assertThat(gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, note)).status()).isEqualTo(200);

    String metrics = scrape(gateway);

    assertThat(metrics)
        .contains(
            "bolo_http_requests_total{endpoint=\"/v1/transcriptions\",outcome=\"unauthorized\","
                + "status=\"401\"} 1.0",
            "bolo_http_requests_total{endpoint=\"/v1/transcriptions\","
                + "outcome=\"audio_too_large\",status=\"413\"} 1.0",
            "bolo_http_requests_total{endpoint=\"/v1/audio/transcriptions\","
                + "outcome=\"unsupported_audio\",status=\"415\"} 1.0",
            "bolo_http_requests_total{endpoint=\"/v1/transcriptions\",outcome=\"ok\","
                + "status=\"200\"} 1.0")
        .containsPattern(
            "bolo_http_requests_total\\{endpoint=\"other\",outcome=\"[a-z_]+\",status=\"404\"\\}"
                + " 1.0");
    // The 415 never reached the engine: one upstream call, the transcript's.
    assertThat(metrics)
        .contains("bolo_upstream_calls_total{engine=\"openai\",result=\"transcribed\"} 1.0")
        .doesNotContain("result=\"unsupportedaudio\"");
    assertThat(provider.calls()).isEqualTo(1);
  }

  @Test
  void replaysAreSplitIntoJoinsOfInFlightWorkAndStoredResults() throws Exception {
    FakeProvider provider = fixture.provider().hold();
    Gateway gateway = fixture.start(Map.of());
    byte[] note = TestAudio.wav(400, 2);
    ExecutorService phones = Executors.newVirtualThreadPerTaskExecutor();
    try {
      Future<Gateway.Reply> first =
          phones.submit(() -> gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, note)));
      Await.until(() -> provider.calls() == 1, () -> "calls: " + provider.calls());
      Future<Gateway.Reply> second =
          phones.submit(() -> gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, note)));
      Await.until(
          () -> gauge(gateway, "bolo_dedup_waiting_copies") == 2,
          () -> "waiting: " + gauge(gateway, "bolo_dedup_waiting_copies"));
      provider.release();
      assertThat(first.get().status()).isEqualTo(200);
      assertThat(second.get().status()).isEqualTo(200);
    } finally {
      phones.shutdownNow();
    }
    assertThat(gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, note)).replayed())
        .isEqualTo("true");

    String metrics = scrape(gateway);

    assertThat(metrics)
        .contains(
            "bolo_replays_total{kind=\"joined\"} 1.0",
            "bolo_replays_total{kind=\"cached\"} 1.0",
            "bolo_transcriptions_total{outcome=\"ok\",replay=\"none\"} 1.0",
            "bolo_transcriptions_total{outcome=\"ok\",replay=\"joined\"} 1.0",
            "bolo_transcriptions_total{outcome=\"ok\",replay=\"cached\"} 1.0");
    assertThat(provider.calls()).isEqualTo(1);
  }

  @Test
  void latencyAndNoteLengthAreHistogramsWithBuckets() throws Exception {
    Gateway gateway = fixture.start(Map.of());
    // 3 s of audio: in the (1, 5] bucket of note length.
    gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, TestAudio.wav(3_000, 3)));

    String metrics = scrape(gateway);

    assertThat(metrics)
        .contains(
            "bolo_upstream_seconds_bucket{engine=\"openai\",result=\"transcribed\",le=\"0.25\"}",
            "bolo_upstream_seconds_bucket{engine=\"openai\",result=\"transcribed\",le=\"900.0\"}",
            "bolo_note_duration_seconds_bucket{le=\"1.0\"} 0",
            "bolo_note_duration_seconds_bucket{le=\"5.0\"} 1",
            "bolo_http_request_duration_seconds_bucket{endpoint=\"/v1/transcriptions\",le=\"1.0\"}");
  }

  @Test
  void aContainerTheEngineCannotReadIsNotCountedAsAnUpstreamCall() throws Exception {
    Map<String, String> env = new HashMap<>();
    env.put("BOLO_PORT", "0");
    env.put("BOLO_ENGINE", "openai");
    env.put("BOLO_OPENAI_BASE_URL", "http://127.0.0.1:9/v1");
    env.put("BOLO_OPENAI_API_KEY", "sk-test");
    env.put("BOLO_DATA_DIR", fixture.dataDir().toString());
    env.put("BOLO_DEVICE_TOKENS", "alpha=" + Gateway.TOKEN_A);
    try (App app =
        App.builder(ServerConfig.fromMap(env))
            .engineView(
                real ->
                    new AnsweringEngine(
                        real,
                        request ->
                            new EngineResult.UnsupportedAudio(
                                "this engine reads no container at all")))
            .build()
            .start()) {
      OkHttpClient client = new OkHttpClient();
      try (Response response =
          client
              .newCall(
                  Gateway.nativeUploadRequest(
                      "http://127.0.0.1:" + app.port() + "/v1/transcriptions",
                      Gateway.TOKEN_A,
                      TestAudio.wav(300, 4)))
              .execute()) {
        assertThat(response.code()).isEqualTo(415);
      }
      String counted =
          "bolo_http_requests_total{endpoint=\"/v1/transcriptions\","
              + "outcome=\"unsupported_audio\",status=\"415\"} 1.0";
      // A request is counted once its answer has left, which can be after the client read it.
      Await.until(() -> app.metrics().scrape().contains(counted), () -> app.metrics().scrape());
      assertThat(app.metrics().scrape()).doesNotContain("bolo_upstream_calls_total{");
      client.dispatcher().executorService().shutdown();
    }
  }

  @Test
  void everyMeterHasHelpTextAndTheGaugesAnOperatorAlertsOnAreThere() throws Exception {
    Gateway gateway = fixture.start(Map.of());
    gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, TestAudio.wav(300, 5)));

    String metrics = scrape(gateway);

    List<String> help = metrics.lines().filter(line -> line.startsWith("# HELP ")).toList();
    assertThat(help).hasSizeGreaterThan(30);
    assertThat(help)
        .allSatisfy(line -> assertThat(line).matches("# HELP [a-zA-Z_:][a-zA-Z0-9_:]* \\S.*"));
    assertThat(metrics)
        .contains(
            "\nbolo_work_running ",
            "\nbolo_transcription_requests_in_flight ",
            "\nbolo_http_requests_active ",
            "\nbolo_spool_bytes ",
            "\nbolo_charges_pending ",
            "\njvm_gc_",
            "\nprocess_cpu_usage ",
            "\nprocess_uptime_seconds ",
            "\njvm_memory_used_bytes{");
  }

  private static double gauge(Gateway gateway, String name) {
    return gateway.app().metrics().get(name).gauge().value();
  }

  static String scrape(Gateway gateway) throws Exception {
    try (Response response = gateway.client().newCall(get(gateway, "/metrics")).execute()) {
      assertThat(response.code()).isEqualTo(200);
      return new String(response.body().bytes(), StandardCharsets.UTF_8);
    }
  }

  private static Request get(Gateway gateway, String path) {
    return new Request.Builder().url(gateway.url(path)).build();
  }
}
