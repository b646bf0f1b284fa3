package dev.bolo.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bolo.server.engine.ClientText;
import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.DeviceInfo;
import dev.bolo.server.ledger.DeviceUsage;
import dev.bolo.server.ledger.DurableLedger;
import dev.bolo.server.ledger.Enrollment;
import dev.bolo.server.ledger.UsageBucket;
import dev.bolo.server.ledger.UsageQuery;
import dev.bolo.server.ledger.UsageSeriesQuery;
import io.javalin.http.Context;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The device and usage half of the operator API: what {@code ./bolo devices} and {@code ./bolo
 * usage} do, over HTTP in JSON. Every change goes through the ledger, so it reaches every gateway
 * sharing the database at once. Thread safe.
 */
final class AdminApi {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** A request body is a name or a number: a kilobyte is plenty and bounds what is parsed. */
  private static final int MAX_BODY_BYTES = 1024;

  /**
   * The ranges a chart offers: each with its bucket width and count, the last bucket holding now.
   */
  enum Range {
    HOUR("hour", Duration.ofMinutes(1), 60),
    DAY("day", Duration.ofHours(1), 24),
    THIRTY_DAYS("30d", Duration.ofDays(1), 30);

    final String wireName;
    final Duration width;
    final int buckets;

    Range(String wireName, Duration width, int buckets) {
      this.wireName = wireName;
      this.width = width;
      this.buckets = buckets;
    }

    static Optional<Range> named(String name) {
      for (Range range : values()) {
        if (range.wireName.equals(name)) {
          return Optional.of(range);
        }
      }
      return Optional.empty();
    }

    /**
     * Buckets aligned to multiples of their width since the epoch (whole minutes, hours, UTC days),
     * so a chart's bars do not shift as it refreshes; the last one holds {@code now}.
     */
    Instant from(Instant now) {
      long width = this.width.toMillis();
      long current = Math.floorDiv(now.toEpochMilli(), width) * width;
      return Instant.ofEpochMilli(current - (buckets - 1) * width);
    }
  }

  private final DurableLedger ledger;
  private final Clock clock;

  AdminApi(DurableLedger ledger, Clock clock) {
    this.ledger = ledger;
    this.clock = clock;
  }

  /** {@code GET /admin/api/devices}: every device with its quota and what is left of it. */
  void devices(Context ctx) {
    ObjectNode body = JSON.createObjectNode();
    var list = body.putArray("devices");
    for (DeviceInfo device : ledger.devices()) {
      list.add(deviceJson(device));
    }
    json(ctx, 200, body);
  }

  /**
   * {@code POST /admin/api/devices} {@code {"name"}}: 201 with the token, shown this once, and the
   * webhook signing secret.
   */
  void addDevice(Context ctx) {
    JsonNode request = bodyOf(ctx);
    if (request == null) {
      return;
    }
    JsonNode name = request.get("name");
    if (name == null || !name.isTextual() || !Device.isValidName(name.asText())) {
      ErrorWriter.write(
          ctx,
          Dialect.NATIVE,
          Errors.invalid(
              "name", "name must be 1-64 letters, digits, '.', '_' or '-': " + shown(name)));
      return;
    }
    switch (ledger.add(new Device(name.asText()))) {
      case Enrollment.Enrolled enrolled -> {
        ObjectNode body = JSON.createObjectNode();
        body.put("name", enrolled.device().name());
        body.put("token", enrolled.token());
        body.put("webhook_secret", enrolled.webhookSecret());
        // The only copy in clear: no cache may keep it.
        ctx.header("Cache-Control", "no-store");
        json(ctx, 201, body);
      }
      case Enrollment.NameTaken taken ->
          ErrorWriter.write(ctx, Dialect.NATIVE, Errors.deviceExists(taken.name()));
    }
  }

  /** {@code POST /admin/api/devices/{name}/revoke}: the device as it is now. */
  void revoke(Context ctx) {
    String name = ctx.pathParam("name");
    if (!Device.isValidName(name) || !ledger.revoke(name)) {
      ErrorWriter.write(ctx, Dialect.NATIVE, Errors.noSuchDevice(shown(name)));
      return;
    }
    answerDevice(ctx, name);
  }

  /**
   * {@code POST /admin/api/devices/{name}/webhook-secret}: 201 with a new signing secret; the one
   * it replaces signs beside it for 24 hours.
   */
  void rotateWebhookSecret(Context ctx) {
    String name = ctx.pathParam("name");
    Optional<String> secret =
        Device.isValidName(name) ? ledger.rotateWebhookSecret(name) : Optional.empty();
    if (secret.isEmpty()) {
      ErrorWriter.write(ctx, Dialect.NATIVE, Errors.noSuchDevice(shown(name)));
      return;
    }
    ObjectNode body = JSON.createObjectNode();
    body.put("name", name);
    body.put("webhook_secret", secret.get());
    body.put("previous_signs_until", clock.instant().plus(Duration.ofHours(24)).toString());
    // A secret in clear: no cache may keep it.
    ctx.header("Cache-Control", "no-store");
    json(ctx, 201, body);
  }

  /** {@code PUT /admin/api/devices/{name}/quota} {@code {"seconds"}}: 0 = unlimited. */
  void setQuota(Context ctx) {
    String name = ctx.pathParam("name");
    if (!Device.isValidName(name)) {
      ErrorWriter.write(ctx, Dialect.NATIVE, Errors.noSuchDevice(shown(name)));
      return;
    }
    JsonNode request = bodyOf(ctx);
    if (request == null) {
      return;
    }
    JsonNode seconds = request.get("seconds");
    // A whole number of seconds, as the CLI takes; the bound keeps its milliseconds in a long.
    if (seconds == null
        || !seconds.canConvertToLong()
        || !seconds.isIntegralNumber()
        || seconds.asLong() < 0
        || seconds.asLong() > Long.MAX_VALUE / 1000) {
      ErrorWriter.write(
          ctx,
          Dialect.NATIVE,
          Errors.invalid(
              "seconds",
              "seconds must be a whole number from 0 (unlimited) to "
                  + Long.MAX_VALUE / 1000
                  + ": "
                  + shown(seconds)));
      return;
    }
    if (!ledger.setQuota(name, seconds.asLong())) {
      ErrorWriter.write(ctx, Dialect.NATIVE, Errors.noSuchDevice(name));
      return;
    }
    answerDevice(ctx, name);
  }

  /**
   * {@code GET /admin/api/usage?range=hour|day|30d&device=NAME}: usage per bucket and in total, for
   * one device or all, with each device's totals over the range.
   */
  void usage(Context ctx) {
    String rangeName = ctx.queryParam("range");
    Optional<Range> range = Range.named(rangeName == null ? "day" : rangeName);
    if (range.isEmpty()) {
      ErrorWriter.write(
          ctx,
          Dialect.NATIVE,
          Errors.invalid("range", "range must be hour, day or 30d: " + shown(rangeName)));
      return;
    }
    String device = ctx.queryParam("device");
    if (device != null && device.isEmpty()) {
      device = null;
    }
    if (device != null && !Device.isValidName(device)) {
      ErrorWriter.write(
          ctx,
          Dialect.NATIVE,
          Errors.invalid(
              "device", "device must be 1-64 letters, digits, '.', '_' or '-': " + shown(device)));
      return;
    }
    if (device != null && !isKnown(device)) {
      ErrorWriter.write(ctx, Dialect.NATIVE, Errors.noSuchDevice(device));
      return;
    }
    Range chosen = range.get();
    Instant from = chosen.from(clock.instant());
    UsageSeriesQuery query = new UsageSeriesQuery(device, from, chosen.width, chosen.buckets);
    List<UsageBucket> buckets = ledger.usageOverTime(query);
    List<DeviceUsage> perDevice = ledger.usage(new UsageQuery(device, from));

    ObjectNode body = JSON.createObjectNode();
    body.put("range", chosen.wireName);
    if (device == null) {
      body.putNull("device");
    } else {
      body.put("device", device);
    }
    body.put("from", from.toString());
    body.put("to", query.to().toString());
    body.put("bucket_seconds", chosen.width.toSeconds());
    var series = body.putArray("buckets");
    UsageBucket total = UsageBucket.empty(from);
    for (UsageBucket bucket : buckets) {
      ObjectNode point = series.addObject();
      point.put("start", bucket.start().toString());
      putCounts(point, bucket, bucket.uniqueNotes());
      total = sum(total, bucket);
    }
    // Unique notes do not add up across buckets (a note answered in two is one note): the range's
    // own count comes from the report, which counts distinct notes over the whole range.
    long uniqueNotes = perDevice.stream().mapToLong(DeviceUsage::uniqueNotes).sum();
    putCounts(body.putObject("total"), total, uniqueNotes);
    var devices = body.putArray("devices");
    for (DeviceUsage usage : perDevice) {
      ObjectNode row = devices.addObject();
      row.put("device", usage.device());
      row.put("requests", usage.requests());
      row.put("unique_notes", usage.uniqueNotes());
      row.put("replays", usage.replays());
      row.put("charged_seconds", seconds(usage.chargedMillis()));
      row.put("saved_seconds", seconds(usage.savedMillis()));
      row.put("redundancy_rate", usage.redundancyRate());
    }
    json(ctx, 200, body);
  }

  private boolean isKnown(String device) {
    return ledger.devices().stream().anyMatch(d -> d.name().equals(device));
  }

  private static UsageBucket sum(UsageBucket a, UsageBucket b) {
    return new UsageBucket(
        a.start(),
        a.requests() + b.requests(),
        0,
        a.joinedReplays() + b.joinedReplays(),
        a.cachedReplays() + b.cachedReplays(),
        a.chargedMillis() + b.chargedMillis(),
        a.savedMillis() + b.savedMillis());
  }

  private static void putCounts(ObjectNode node, UsageBucket bucket, long uniqueNotes) {
    node.put("requests", bucket.requests());
    node.put("unique_notes", uniqueNotes);
    node.put("replays_joined", bucket.joinedReplays());
    node.put("replays_cached", bucket.cachedReplays());
    node.put("charged_seconds", seconds(bucket.chargedMillis()));
    node.put("saved_seconds", seconds(bucket.savedMillis()));
    node.put("redundancy_rate", bucket.redundancyRate());
  }

  private void answerDevice(Context ctx, String name) {
    Optional<DeviceInfo> device =
        ledger.devices().stream().filter(d -> d.name().equals(name)).findFirst();
    if (device.isEmpty()) {
      ErrorWriter.write(ctx, Dialect.NATIVE, Errors.noSuchDevice(name));
      return;
    }
    json(ctx, 200, deviceJson(device.get()));
  }

  private static ObjectNode deviceJson(DeviceInfo device) {
    ObjectNode node = JSON.createObjectNode();
    node.put("name", device.name());
    node.put("created_at", device.created().toString());
    if (device.revoked() == null) {
      node.putNull("revoked_at");
    } else {
      node.put("revoked_at", device.revoked().toString());
    }
    node.put("quota_seconds", seconds(device.quotaMillis()));
    node.put("quota_source", device.quotaOverrideMillis() == null ? "trial" : "device");
    node.put("charged_seconds", seconds(device.chargedMillis()));
    if (device.isUnlimited()) {
      node.putNull("remaining_seconds");
    } else {
      node.put("remaining_seconds", seconds(device.remainingMillis()));
    }
    node.put("configured_only", device.configuredOnly());
    return node;
  }

  /** The request's JSON object, or null after answering 400. */
  static @Nullable JsonNode bodyOf(Context ctx) {
    byte[] bytes;
    try {
      bytes = ctx.req().getInputStream().readNBytes(MAX_BODY_BYTES + 1);
    } catch (java.io.IOException e) {
      ErrorWriter.write(
          ctx, Dialect.NATIVE, Errors.requestTimeout("the request body did not arrive"));
      return null;
    }
    if (bytes.length > MAX_BODY_BYTES) {
      ErrorWriter.write(
          ctx,
          Dialect.NATIVE,
          Errors.invalid("body", "the request body exceeds " + MAX_BODY_BYTES + " bytes"));
      return null;
    }
    JsonNode node;
    try {
      node = JSON.readTree(bytes);
    } catch (java.io.IOException malformed) {
      node = null;
    }
    if (node == null || !node.isObject()) {
      ErrorWriter.write(
          ctx, Dialect.NATIVE, Errors.invalid("body", "the request body must be a JSON object"));
      return null;
    }
    return node;
  }

  private static double seconds(long millis) {
    return millis / 1000.0;
  }

  /** A value for an error message: bounded, so a huge parameter does not fill the answer. */
  private static String shown(@Nullable Object value) {
    return ClientText.shown(String.valueOf(value), 64);
  }

  private static void json(Context ctx, int status, ObjectNode body) {
    try {
      ctx.status(status).contentType("application/json").result(JSON.writeValueAsBytes(body));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a tree of plain values always serialises", e);
    }
  }
}
