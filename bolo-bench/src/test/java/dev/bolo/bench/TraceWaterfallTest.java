package dev.bolo.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.bolo.server.testing.TraceReceiver.Received;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;

/**
 * The doc's trace pictures: spans nested as they were sent, links drawn, nothing unlisted shown.
 */
class TraceWaterfallTest {

  private static final String OWNER_TRACE = "11".repeat(16);
  private static final String JOINED_TRACE = "22".repeat(16);

  @Test
  void spansNestUnderTheirParentsAndAJoinedCopyPointsAtItsOwner() throws Exception {
    List<Received> spans = new ArrayList<>();
    spans.add(
        span(
            OWNER_TRACE,
            "a1",
            "",
            "POST /v1/transcriptions",
            0,
            900,
            "http.route",
            "/v1/transcriptions"));
    spans.add(
        span(OWNER_TRACE, "a2", "a1", "resolve work key", 10, 880, "bolo.resolution", "owner"));
    spans.add(
        span(
            OWNER_TRACE,
            "a3",
            "a2",
            "engine attempt",
            20,
            860,
            "bolo.engine.outcome",
            "transcribed"));
    spans.add(span(OWNER_TRACE, "a4", "a1", "read upload", 2, 8, "bolo.audio.bytes", "96044"));
    Received joined =
        new Received(
            span(JOINED_TRACE, "b2", "b1", "resolve work key", 50, 890, "bolo.resolution", "joined")
                .span()
                .toBuilder()
                .addLinks(
                    Span.Link.newBuilder().setTraceId(id(OWNER_TRACE)).setSpanId(id(pad("a2"))))
                .addAttributes(attribute("device.secret", "alpha-token"))
                .build(),
            Map.of());
    spans.add(
        span(
            JOINED_TRACE,
            "b1",
            "",
            "POST /v1/transcriptions",
            40,
            900,
            "http.route",
            "/v1/transcriptions"));
    spans.add(joined);

    String svg = TraceWaterfall.svg("a storm", spans, List.of(JOINED_TRACE, OWNER_TRACE));

    Document document =
        DocumentBuilderFactory.newInstance()
            .newDocumentBuilder()
            .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    List<String> texts = new ArrayList<>();
    NodeList nodes = document.getElementsByTagName("text");
    for (int i = 0; i < nodes.getLength(); i++) {
      texts.add(nodes.item(i).getTextContent());
    }
    List<String> rows =
        texts.stream()
            .filter(
                t ->
                    t.startsWith("trace ")
                        || t.startsWith("POST")
                        || t.contains(" work key")
                        || t.startsWith("read")
                        || t.startsWith("engine"))
            .map(t -> t.replace(" server", "").trim())
            .toList();
    assertThat(rows)
        .as("the trace that began first comes first; children by start under their parent")
        .containsExactly(
            "trace 1 of 2 · " + OWNER_TRACE,
            "POST /v1/transcriptions",
            "read upload",
            "resolve work key",
            "engine attempt",
            "trace 2 of 2 · " + JOINED_TRACE,
            "POST /v1/transcriptions",
            "resolve work key");
    assertThat(texts).contains("bolo.resolution=joined", "link to the owner's span");
    assertThat(svg).contains("marker-end=\"url(#arrow)\"").doesNotContain("alpha-token");
  }

  @Test
  void anEventShowsItsNumberAttributeAsWellAsItsText() {
    Received resolve =
        new Received(
            span(OWNER_TRACE, "a2", "", "resolve work key", 10, 880, "bolo.resolution", "owner")
                .span()
                .toBuilder()
                .addEvents(
                    Span.Event.newBuilder()
                        .setName("charge")
                        .setTimeUnixNano(870_000_000L)
                        .addAttributes(
                            KeyValue.newBuilder()
                                .setKey("bolo.charged_ms")
                                .setValue(AnyValue.newBuilder().setIntValue(6_400))))
                .build(),
            Map.of());

    String svg = TraceWaterfall.svg("a note", List.of(resolve), List.of(OWNER_TRACE));

    assertThat(svg).contains("bolo.resolution=owner", "charge: 6400");
  }

  private static Received span(
      String trace,
      String id,
      String parent,
      String name,
      int fromMs,
      int toMs,
      String key,
      String value) {
    Span.Builder span =
        Span.newBuilder()
            .setTraceId(id(trace))
            .setSpanId(id(pad(id)))
            .setName(name)
            .setStartTimeUnixNano(fromMs * 1_000_000L)
            .setEndTimeUnixNano(toMs * 1_000_000L)
            .addAttributes(attribute(key, value));
    if (!parent.isEmpty()) {
      span.setParentSpanId(id(pad(parent)));
    }
    return new Received(span.build(), Map.of());
  }

  private static KeyValue attribute(String key, String value) {
    return KeyValue.newBuilder()
        .setKey(key)
        .setValue(AnyValue.newBuilder().setStringValue(value))
        .build();
  }

  private static String pad(String shortId) {
    return "0".repeat(16 - shortId.length()) + shortId;
  }

  private static ByteString id(String hex) {
    return ByteString.copyFrom(HexFormat.of().parseHex(hex));
  }
}
