package dev.bolo.server.transcription;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** How a job keeps its settings and metadata (JSON objects of strings), and its ids. Stateless. */
final class JobFields {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final SecureRandom IDS = new SecureRandom();

  private JobFields() {}

  /** The settings as sent, by their form field names; granularities joined by commas. */
  static Map<String, String> of(SettingFields fields) {
    Map<String, String> map = new LinkedHashMap<>();
    putIfSet(map, "model", fields.model());
    putIfSet(map, "language", fields.language());
    putIfSet(map, "prompt", fields.prompt());
    putIfSet(map, "temperature", fields.temperature());
    putIfSet(map, "response_format", fields.responseFormat());
    if (!fields.timestampGranularities().isEmpty()) {
      map.put("timestamp_granularities", String.join(",", fields.timestampGranularities()));
    }
    return map;
  }

  static Map<String, String> of(String json) {
    try {
      return JSON.readerForMapOf(String.class).readValue(json);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("the ledger keeps a job's fields as they were written", e);
    }
  }

  private static void putIfSet(Map<String, String> map, String name, @Nullable String value) {
    if (value != null) {
      map.put(name, value);
    }
  }

  static String json(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a map of strings always serialises", e);
    }
  }

  /** A fresh id: {@code prefix} and 24 random hex digits. */
  static String newId(String prefix) {
    byte[] bytes = new byte[12];
    IDS.nextBytes(bytes);
    return prefix + HexFormat.of().formatHex(bytes);
  }
}
