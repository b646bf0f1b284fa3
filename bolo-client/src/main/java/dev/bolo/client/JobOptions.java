package dev.bolo.client;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a job carries beyond its note's settings. Immutable.
 *
 * @param webhookUrl where the gateway posts the job's end ({@code https}, or {@code http} to a host
 *     its operator allows), signed with the device's webhook secret; null for none (poll {@link
 *     BoloClient#job})
 * @param metadata up to 16 labels of at most 500 characters each, echoed back in the job and its
 *     webhook, such as an order number
 */
public record JobOptions(@Nullable String webhookUrl, Map<String, String> metadata) {

  /** The most labels a job carries (PROTOCOL v4). */
  public static final int MAX_METADATA_VALUES = 16;

  /** The longest label name or value (PROTOCOL v4). */
  public static final int MAX_METADATA_CHARS = 500;

  private static final JobOptions NONE = new JobOptions(null, Map.of());

  public JobOptions {
    // Each is a caller's bug the gateway would only answer with a 400.
    if (webhookUrl != null && webhookUrl.isBlank()) {
      throw new IllegalArgumentException("webhookUrl must not be blank: '" + webhookUrl + "'");
    }
    if (metadata.size() > MAX_METADATA_VALUES) {
      throw new IllegalArgumentException(
          "metadata holds at most " + MAX_METADATA_VALUES + " values: " + metadata.size());
    }
    metadata.forEach(
        (name, value) -> {
          if (name.length() > MAX_METADATA_CHARS || value.length() > MAX_METADATA_CHARS) {
            throw new IllegalArgumentException(
                "metadata names and values hold at most "
                    + MAX_METADATA_CHARS
                    + " characters: "
                    + name);
          }
        });
    metadata = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
  }

  /** No webhook and no metadata: the job is polled. */
  public static JobOptions none() {
    return NONE;
  }

  /** These options with {@code webhookUrl} (null for none). */
  public JobOptions withWebhookUrl(@Nullable String webhookUrl) {
    return new JobOptions(webhookUrl, metadata);
  }

  /** These options with one more label. */
  public JobOptions withMetadata(String name, String value) {
    Map<String, String> more = new LinkedHashMap<>(metadata);
    more.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
    return new JobOptions(webhookUrl, more);
  }
}
