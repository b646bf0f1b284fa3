package dev.bolo.bench;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

/** What the load harnesses share: the notes they send and the gateway settings they pass on. */
final class BenchNotes {

  private BenchNotes() {}

  /** A 16 kHz mono 16-bit WAV of about {@code bytes} bytes of quiet noise. */
  static byte[] wav(int bytes) {
    int data = bytes - 44;
    ByteBuffer buffer = ByteBuffer.allocate(44 + data).order(ByteOrder.LITTLE_ENDIAN);
    buffer.put("RIFF".getBytes(StandardCharsets.US_ASCII)).putInt(36 + data);
    buffer.put("WAVE".getBytes(StandardCharsets.US_ASCII));
    buffer.put("fmt ".getBytes(StandardCharsets.US_ASCII)).putInt(16);
    buffer.putShort((short) 1).putShort((short) 1).putInt(16_000).putInt(32_000);
    buffer.putShort((short) 2).putShort((short) 16);
    buffer.put("data".getBytes(StandardCharsets.US_ASCII)).putInt(data);
    Random random = new Random(42);
    while (buffer.remaining() >= 2) {
      buffer.putShort((short) (random.nextGaussian() * 800));
    }
    return buffer.array();
  }

  /** Every {@code BOLO_*} variable of the harness's environment, to apply to the gateway too. */
  static Map<String, String> boloEnvironment() {
    Map<String, String> env = new HashMap<>();
    System.getenv()
        .forEach(
            (name, value) -> {
              if (name.startsWith("BOLO_")) {
                env.put(name, value);
              }
            });
    return env;
  }
}
