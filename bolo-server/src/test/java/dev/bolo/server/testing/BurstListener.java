package dev.bolo.server.testing;

import dev.bolo.server.work.WorkKey;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import org.jspecify.annotations.Nullable;

/**
 * A {@link FakeProvider}'s answers to notes made by {@link TestAudio#bursts}: it tells the bursts
 * apart by their loudness and answers with their names ({@code "b2 b3"}), in {@code verbose_json}
 * with one segment per burst when asked, so an answer shows which bursts each request held and
 * where. Records every call it answers. Install it with {@code
 * provider.answerWith(listener::answer)}. Thread safe.
 */
public final class BurstListener {

  /**
   * One call the provider answered.
   *
   * @param bodyBytes the whole request's size
   * @param samples the audio's 16 kHz samples
   * @param audioSha256 a hash of the whole request, the same for the same audio and fields
   * @param prompt the request's {@code prompt}, empty when it had none
   * @param text what was answered
   * @param container the audio file's first four bytes ({@code fLaC}, {@code RIFF})
   */
  public record Call(
      long bodyBytes,
      int samples,
      String audioSha256,
      String prompt,
      String text,
      String container) {}

  private final ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();

  /** The calls answered so far, in the order they arrived. */
  public List<Call> calls() {
    return List.copyOf(calls);
  }

  /** Answers one call. */
  public MockResponse answer(RecordedRequest request) {
    byte[] body = request.getBody() == null ? new byte[0] : request.getBody().toByteArray();
    byte[] audio = filePart(body, request.getHeaders().get("Content-Type"));
    short[] pcm = TestAudio.samplesOf(audio);
    List<TestAudio.Burst> bursts = TestAudio.burstsIn(pcm);
    String text = bursts.stream().map(TestAudio.Burst::name).collect(Collectors.joining(" "));
    String form = FakeProvider.bodyText(request);
    calls.add(
        new Call(
            body.length,
            pcm.length,
            WorkKey.sha256Hex(body),
            field(form, "prompt"),
            text,
            new String(audio, 0, Math.min(4, audio.length), StandardCharsets.US_ASCII)));
    if (!form.contains("verbose_json")) {
      return json("{\"text\":\"" + text + "\"}");
    }
    String segments =
        bursts.stream()
            .map(
                b ->
                    String.format(
                        Locale.ROOT,
                        "{\"id\":0,\"start\":%.3f,\"end\":%.3f,\"text\":\" %s\"}",
                        b.startMillis() / 1000.0,
                        b.endMillis() / 1000.0,
                        b.name()))
            .collect(Collectors.joining(","));
    return json(
        "{\"task\":\"transcribe\",\"language\":\"english\",\"duration\":"
            + pcm.length / 16000.0
            + ",\"text\":\""
            + text
            + "\",\"segments\":["
            + segments
            + "]}");
  }

  /**
   * Answers one Gemini {@code generateContent} call whose note is inline, as Gemini answers: one
   * candidate whose text names the bursts.
   */
  public MockResponse answerAsGemini(RecordedRequest request) {
    String body = FakeProvider.bodyText(request);
    String data = "\"data\":\"";
    int at = body.indexOf(data);
    if (at < 0) {
      return json("{\"error\":{\"code\":400,\"message\":\"no inline audio\"}}");
    }
    int start = at + data.length();
    byte[] wav = Base64.getDecoder().decode(body.substring(start, body.indexOf('"', start)));
    short[] pcm = TestAudio.samplesOf(wav);
    String text =
        TestAudio.burstsIn(pcm).stream()
            .map(TestAudio.Burst::name)
            .collect(Collectors.joining(" "));
    calls.add(
        new Call(
            body.length(),
            pcm.length,
            WorkKey.sha256Hex(wav),
            "",
            text,
            new String(wav, 0, Math.min(4, wav.length), StandardCharsets.US_ASCII)));
    return json(
        "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\""
            + text
            + "\"}],\"role\":\"model\"},\"finishReason\":\"STOP\",\"index\":0}]}");
  }

  /** The bytes of the form's {@code file} part. */
  private static byte[] filePart(byte[] form, @Nullable String contentType) {
    if (contentType == null || !contentType.contains("boundary=")) {
      throw new AssertionError("not a multipart form: " + contentType);
    }
    String boundary = contentType.substring(contentType.indexOf("boundary=") + 9);
    int part = indexOf(form, "name=\"file\"".getBytes(StandardCharsets.US_ASCII), 0);
    int start = indexOf(form, "\r\n\r\n".getBytes(StandardCharsets.US_ASCII), part) + 4;
    int end = indexOf(form, ("\r\n--" + boundary).getBytes(StandardCharsets.US_ASCII), start);
    if (part < 0 || end < 0) {
      throw new AssertionError("no file part in the form");
    }
    return Arrays.copyOfRange(form, start, end);
  }

  private static int indexOf(byte[] bytes, byte[] what, int from) {
    outer:
    for (int i = Math.max(0, from); i <= bytes.length - what.length; i++) {
      for (int j = 0; j < what.length; j++) {
        if (bytes[i + j] != what[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  /** A text field of a multipart form, empty when it has none. */
  private static String field(String form, String name) {
    int at = form.indexOf("name=\"" + name + "\"");
    if (at < 0) {
      return "";
    }
    int start = form.indexOf("\r\n\r\n", at) + 4;
    return form.substring(start, form.indexOf("\r\n", start));
  }

  private static MockResponse json(String body) {
    return new MockResponse.Builder()
        .code(200)
        .setHeader("Content-Type", "application/json")
        .body(body)
        .build();
  }
}
