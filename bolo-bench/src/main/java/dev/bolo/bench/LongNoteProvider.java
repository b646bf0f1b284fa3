package dev.bolo.bench;

import io.javalin.Javalin;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A provider stand-in for long notes, in the bench's own JVM: it takes {@code 0.2 s} per minute of
 * audio (read from a FLAC piece's STREAMINFO or a WAV's header), refuses a request over OpenAI's 25
 * MB with OpenAI's 413 unless the cap is lifted, fails the calls it is told to with a 500, and
 * answers {@code verbose_json} with one segment. Counts calls and the largest request.
 */
final class LongNoteProvider implements AutoCloseable {

  /** 25 MB as OpenAI counts it. */
  static final long OPENAI_CAP = 26_214_400;

  private final Javalin server;
  private final long cap;
  private final double secondsPerAudioMinute;
  final AtomicInteger calls = new AtomicInteger();
  final AtomicLong largestRequest = new AtomicLong();
  final AtomicInteger refusedOverCap = new AtomicInteger();

  /** The 1-based numbers of the calls answered with a 500. */
  private final java.util.Set<Integer> failing = java.util.concurrent.ConcurrentHashMap.newKeySet();

  LongNoteProvider(long cap, double secondsPerAudioMinute) {
    this.cap = cap;
    this.secondsPerAudioMinute = secondsPerAudioMinute;
    this.server =
        Javalin.create(
            config -> {
              config.concurrency.useVirtualThreads = true;
              config.startup.showJavalinBanner = false;
              config.routes.post("/v1/audio/transcriptions", ctx -> answer(ctx));
            });
    server.start("127.0.0.1", 0);
  }

  int port() {
    return server.port();
  }

  /** The {@code call}-th call (from 1) is answered with a 500. */
  void failCall(int call) {
    failing.add(call);
  }

  private void answer(io.javalin.http.Context ctx) throws IOException, InterruptedException {
    int call = calls.incrementAndGet();
    byte[] head = new byte[64 * 1024];
    long size = 0;
    int headLength = 0;
    byte[] buffer = new byte[256 * 1024];
    try (InputStream in = ctx.req().getInputStream()) {
      int n;
      while ((n = in.read(buffer)) != -1) {
        if (headLength < head.length) {
          int copy = Math.min(n, head.length - headLength);
          System.arraycopy(buffer, 0, head, headLength, copy);
          headLength += copy;
        }
        size += n;
      }
    }
    largestRequest.accumulateAndGet(size, Math::max);
    if (size > cap) {
      refusedOverCap.incrementAndGet();
      ctx.status(413)
          .contentType("application/json")
          .result(
              "{\"error\":{\"message\":\"Maximum content size limit (26214400) exceeded\","
                  + "\"type\":\"invalid_request_error\"}}");
      return;
    }
    double seconds = audioSeconds(head, headLength);
    Thread.sleep(Math.round(seconds / 60 * secondsPerAudioMinute * 1000));
    if (failing.contains(call)) {
      ctx.status(500).contentType("application/json").result("{\"error\":{\"message\":\"boom\"}}");
      return;
    }
    String text = String.format(Locale.ROOT, "a piece of %.1f seconds", seconds);
    ctx.contentType("application/json")
        .result(
            String.format(
                Locale.ROOT,
                "{\"task\":\"transcribe\",\"language\":\"english\",\"duration\":%.3f,\"text\":\"%s\","
                    + "\"segments\":[{\"id\":0,\"start\":0.0,\"end\":%.3f,\"text\":\" %s\"}]}",
                seconds,
                text,
                seconds,
                text));
  }

  /** The audio's length from a FLAC STREAMINFO or a WAV header in the request's first bytes. */
  static double audioSeconds(byte[] head, int length) {
    String latin = new String(head, 0, length, StandardCharsets.ISO_8859_1);
    int flac = latin.indexOf("fLaC");
    if (flac >= 0) {
      int info = flac + 8;
      long rate =
          ((head[info + 10] & 0xFFL) << 12)
              | ((head[info + 11] & 0xFFL) << 4)
              | ((head[info + 12] & 0xF0L) >> 4);
      long samples =
          ((head[info + 13] & 0x0FL) << 32)
              | ((head[info + 14] & 0xFFL) << 24)
              | ((head[info + 15] & 0xFFL) << 16)
              | ((head[info + 16] & 0xFFL) << 8)
              | (head[info + 17] & 0xFFL);
      return (double) samples / rate;
    }
    int riff = latin.indexOf("RIFF");
    int fmt = latin.indexOf("fmt ", Math.max(riff, 0));
    int data = latin.indexOf("data", Math.max(fmt, 0));
    if (riff >= 0 && fmt >= 0 && data >= 0) {
      long byteRate = le32(head, fmt + 16);
      long dataBytes = le32(head, data + 4);
      return byteRate == 0 ? 0 : (double) dataBytes / byteRate;
    }
    return 0;
  }

  private static long le32(byte[] b, int at) {
    return (b[at] & 0xFFL)
        | (b[at + 1] & 0xFFL) << 8
        | (b[at + 2] & 0xFFL) << 16
        | (b[at + 3] & 0xFFL) << 24;
  }

  @Override
  public void close() {
    server.stop();
  }
}
