package dev.bolo.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.junit5.StartStop;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class UploadTimeoutsTest {

  @StartStop private final MockWebServer server = new MockWebServer();

  private final UploadTimeouts timeouts = new UploadTimeouts();

  @ParameterizedTest(name = "duration header {0} gives {1} s")
  @CsvSource({
    "'', 30",
    "abc, 30",
    "-5, 30",
    "1.5, 30",
    "0, 30",
    "10000, 35",
    "60000, 60",
    "180000, 120",
    "181000, 120",
    "999999999999999999, 120",
    "99999999999999999999, 30"
  })
  void readTimeoutIsThirtySecondsPlusHalfTheNoteClampedToTwoMinutes(String header, long seconds) {
    assertThat(timeouts.timeoutFor(header)).isEqualTo(Duration.ofSeconds(seconds));
  }

  @Test
  void missingHeaderGivesThirtySeconds() {
    assertThat(timeouts.timeoutFor(null)).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void laterInterceptorSeesTheScaledReadAndWriteTimeouts() throws IOException {
    List<String> seen = new CopyOnWriteArrayList<>();
    OkHttpClient client =
        new OkHttpClient.Builder()
            .readTimeout(Duration.ofSeconds(10))
            .writeTimeout(Duration.ofSeconds(10))
            .addInterceptor(timeouts)
            .addInterceptor(
                chain -> {
                  seen.add(chain.readTimeoutMillis() + "/" + chain.writeTimeoutMillis());
                  return chain.proceed(chain.request());
                })
            .build();
    server.enqueue(new MockResponse.Builder().body("ok").build());
    server.enqueue(new MockResponse.Builder().body("ok").build());
    server.enqueue(new MockResponse.Builder().body("ok").build());

    call(client, "100000");
    call(client, null);
    call(client, "not-a-number");

    assertThat(seen).containsExactly("80000/80000", "30000/30000", "30000/30000");
  }

  private void call(OkHttpClient client, @Nullable String durationMs) throws IOException {
    Request.Builder request =
        new Request.Builder().url(server.url("/")).post(RequestBody.create(new byte[] {1}));
    if (durationMs != null) {
      request.header(UploadTimeouts.DURATION_HEADER, durationMs);
    }
    try (Response response = client.newCall(request.build()).execute()) {
      assertThat(response.code()).isEqualTo(200);
    }
  }
}
