package dev.bolo.bench;

import dev.bolo.server.testing.TraceReceiver.Received;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Draws received spans as a trace viewer's waterfall, in SVG: one row per span, nested under its
 * parent and ordered by start, with its name, the attributes that tell the story (an allow-list:
 * nothing else of a span is drawn), a bar from its start to its end on a common time axis, its
 * events as markers, and its links as arrows to the linked span when that span is drawn too.
 * Several traces are drawn one under the other, in the order given.
 */
final class TraceWaterfall {

  /** The attributes drawn, in this order, where a span has them. */
  static final List<String> SHOWN =
      List.of(
          "http.route",
          "http.response.status_code",
          "error.type",
          "bolo.audio.bytes",
          "bolo.resolution",
          "bolo.work_key",
          "bolo.engine.target",
          "bolo.engine.model",
          "bolo.engine.outcome",
          "bolo.charged_ms");

  private static final int WIDTH = 1180;
  private static final int LABEL = 20;
  private static final int AXIS_LEFT = 640;
  private static final int AXIS_RIGHT = 1090;
  private static final int ROW = 34;
  private static final int TOP = 70;

  private TraceWaterfall() {}

  /** The waterfall of {@code spans}, the traces of {@code traces} drawn in the order they began. */
  static String svg(String title, List<Received> spans, List<String> traces) {
    List<String> traceIds = new ArrayList<>(traces);
    traceIds.sort(Comparator.comparingLong(t -> start(spans, t)));
    List<Row> rows = new ArrayList<>();
    for (int t = 0; t < traceIds.size(); t++) {
      String traceId = traceIds.get(t);
      List<Received> trace = spans.stream().filter(s -> s.traceId().equals(traceId)).toList();
      rows.add(new Row(null, 0, "trace " + (t + 1) + " of " + traceIds.size() + " · " + traceId));
      Set<String> ids = trace.stream().map(Received::spanId).collect(Collectors.toSet());
      trace.stream()
          .filter(s -> !ids.contains(s.parentId()))
          .sorted(byStart())
          .forEach(root -> addTree(rows, trace, root, 0));
    }
    long start = spans.stream().mapToLong(s -> s.span().getStartTimeUnixNano()).min().orElse(0);
    long end = spans.stream().mapToLong(s -> s.span().getEndTimeUnixNano()).max().orElse(1);
    Axis axis = new Axis(start, Math.max(end - start, 1));

    int height = TOP + rows.size() * ROW + 60;
    StringBuilder svg = new StringBuilder();
    svg.append(
        format(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d"
                + " %d\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">%n",
            WIDTH, height, WIDTH, height));
    svg.append(
        "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\""
            + " markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\""
            + " fill=\"#8e44ad\"/></marker></defs>\n");
    svg.append(format("<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>%n", WIDTH, height));
    svg.append(
        format(
            "<text x=\"%d\" y=\"26\" font-size=\"16\" font-weight=\"bold\">%s</text>%n",
            LABEL, escape(title)));
    axis.draw(svg, TOP - 14, TOP + rows.size() * ROW);

    Map<String, Integer> rowOf = new HashMap<>();
    for (int r = 0; r < rows.size(); r++) {
      Received span = rows.get(r).span();
      if (span != null) {
        rowOf.put(span.spanId(), r);
      }
    }
    for (int r = 0; r < rows.size(); r++) {
      drawRow(svg, rows.get(r), TOP + r * ROW, axis);
    }
    for (int r = 0; r < rows.size(); r++) {
      Received span = rows.get(r).span();
      if (span == null) {
        continue;
      }
      for (String linked : span.linkedSpanIds()) {
        Integer target = rowOf.get(linked);
        if (target != null) {
          drawLink(
              svg,
              axis,
              Objects.requireNonNull(rows.get(target).span()),
              TOP + target * ROW,
              span,
              TOP + r * ROW);
        }
      }
    }
    legend(svg, TOP + rows.size() * ROW + 34);
    return svg.append("</svg>\n").toString();
  }

  /** A row: a span at its depth, or (span null) a trace's heading. */
  private record Row(@Nullable Received span, int depth, String heading) {}

  private static void addTree(List<Row> rows, List<Received> trace, Received span, int depth) {
    rows.add(new Row(span, depth, ""));
    trace.stream()
        .filter(s -> s.parentId().equals(span.spanId()))
        .sorted(byStart())
        .forEach(child -> addTree(rows, trace, child, depth + 1));
  }

  /** When the trace's first span began. */
  private static long start(List<Received> spans, String traceId) {
    return spans.stream()
        .filter(s -> s.traceId().equals(traceId))
        .mapToLong(s -> s.span().getStartTimeUnixNano())
        .min()
        .orElse(Long.MAX_VALUE);
  }

  private static Comparator<Received> byStart() {
    return Comparator.comparingLong(s -> s.span().getStartTimeUnixNano());
  }

  private static void drawRow(StringBuilder svg, Row row, int y, Axis axis) {
    Received span = row.span();
    if (span == null) {
      svg.append(
          format(
              "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#cccccc\"/>%n",
              LABEL, y + 4, WIDTH - LABEL, y + 4));
      svg.append(
          format(
              "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#555555\" font-weight=\"bold\">%s</text>%n",
              LABEL, y + 22, escape(row.heading())));
      return;
    }
    int x = LABEL + 16 * row.depth();
    svg.append(
        format(
            "<text x=\"%d\" y=\"%d\" font-size=\"13\">%s <tspan font-size=\"10\" fill=\"#777777\">%s</tspan></text>%n",
            x, y + 14, escape(span.name()), kind(span)));
    String attributes = attributes(span);
    if (!attributes.isEmpty()) {
      svg.append(
          format(
              "<text x=\"%d\" y=\"%d\" font-size=\"10\" fill=\"#555555\" font-family=\"DejaVu Sans Mono, monospace\">%s</text>%n",
              x, y + 28, escape(attributes)));
    }
    double from = axis.x(span.span().getStartTimeUnixNano());
    double to = Math.max(axis.x(span.span().getEndTimeUnixNano()), from + 2);
    svg.append(
        format(
            "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"14\" rx=\"2\" fill=\"%s\"/>%n",
            from, y + 10, to - from, colour(span)));
    svg.append(
        format(
            "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" fill=\"#333333\">%s</text>%n",
            to + 4,
            y + 21,
            millis(span.span().getEndTimeUnixNano() - span.span().getStartTimeUnixNano())));
    for (Span.Event event : span.span().getEventsList()) {
      double at = axis.x(event.getTimeUnixNano());
      svg.append(
          format("<path d=\"M%.1f,%d l5,6 l-5,6 l-5,-6 z\" fill=\"#222222\"/>%n", at, y + 5));
      svg.append(
          format(
              "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" fill=\"#222222\">%s</text>%n",
              at + 7, y + 6, escape(event.getName())));
    }
  }

  /** An arrow from the linked span's bar to the bar of the span that links to it. */
  private static void drawLink(
      StringBuilder svg, Axis axis, Received to, int toY, Received from, int fromY) {
    double x1 = axis.x(from.span().getStartTimeUnixNano());
    double x2 = axis.x(to.span().getStartTimeUnixNano());
    int y1 = fromY + 17;
    int y2 = toY + 17;
    svg.append(
        format(
            "<path d=\"M%.1f,%d C%.1f,%d %.1f,%d %.1f,%d\" fill=\"none\" stroke=\"#8e44ad\" stroke-width=\"1.5\" stroke-dasharray=\"5,3\" marker-end=\"url(#arrow)\"/>%n",
            x1, y1, x1 - 40, y1, x2 - 40, y2, x2 - 2, y2));
    svg.append(
        format(
            "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" fill=\"#8e44ad\">link to the owner's span</text>%n",
            x1 + 4, y1 + 14));
  }

  private static String attributes(Received span) {
    List<String> shown = new ArrayList<>();
    for (String key : SHOWN) {
      span.attribute(key).ifPresent(value -> shown.add(key + "=" + value));
    }
    for (Span.Event event : span.span().getEventsList()) {
      List<String> values = new ArrayList<>();
      for (String key : SHOWN) {
        event.getAttributesList().stream()
            .filter(kv -> kv.getKey().equals(key))
            .forEach(
                kv ->
                    values.add(
                        kv.getValue().hasIntValue()
                            ? Long.toString(kv.getValue().getIntValue())
                            : kv.getValue().getStringValue()));
      }
      shown.add(event.getName() + ": " + String.join(" ", values));
    }
    return String.join("  ", shown);
  }

  private static String kind(Received span) {
    return switch (span.span().getKind()) {
      case SPAN_KIND_SERVER -> "server";
      case SPAN_KIND_CLIENT -> "client";
      default -> "";
    };
  }

  private static String colour(Received span) {
    boolean failed =
        span.span().getStatus().getCode() == Status.StatusCode.STATUS_CODE_ERROR
            || span.attribute("bolo.engine.outcome")
                .map(o -> !o.equals("transcribed"))
                .orElse(false)
            || span.attribute("http.response.status_code")
                .map(c -> c.startsWith("5"))
                .orElse(false);
    if (failed) {
      return "#e15759";
    }
    return switch (span.span().getKind()) {
      case SPAN_KIND_SERVER -> "#4e79a7";
      case SPAN_KIND_CLIENT -> "#f28e2b";
      default -> "#59a14f";
    };
  }

  private static void legend(StringBuilder svg, int y) {
    String[][] items = {
      {"#4e79a7", "server span"},
      {"#59a14f", "internal span"},
      {"#f28e2b", "client span (provider call)"},
      {"#e15759", "failed attempt or call"}
    };
    int x = LABEL;
    for (String[] item : items) {
      svg.append(
          format(
              "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"10\" fill=\"%s\"/>%n",
              x, y - 9, item[0]));
      svg.append(
          format("<text x=\"%d\" y=\"%d\" font-size=\"11\">%s</text>%n", x + 19, y, item[1]));
      x += 40 + 7 * item[1].length();
    }
    svg.append(
        format(
            "<path d=\"M%d,%d l6,-6 l6,6 l-6,6 z\" transform=\"translate(0,-4)\" fill=\"#222222\"/><text x=\"%d\" y=\"%d\" font-size=\"11\">event</text>%n",
            x, y, x + 17, y));
    x += 70;
    svg.append(
        format(
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#8e44ad\" stroke-width=\"1.5\" stroke-dasharray=\"5,3\" marker-end=\"url(#arrow)\"/><text x=\"%d\" y=\"%d\" font-size=\"11\">span link</text>%n",
            x, y - 4, x + 30, y - 4, x + 36, y));
  }

  /** The time axis: nanoseconds since the first span's start, drawn across the bars' area. */
  private record Axis(long start, long length) {

    double x(long nanos) {
      return AXIS_LEFT + (double) (nanos - start) / length * (AXIS_RIGHT - AXIS_LEFT);
    }

    void draw(StringBuilder svg, int top, int bottom) {
      long totalMillis = length / 1_000_000;
      long step = 1;
      for (long candidate :
          new long[] {1, 2, 5, 10, 20, 50, 100, 200, 250, 500, 1000, 2000, 5000}) {
        step = candidate;
        if (totalMillis / candidate <= 8) {
          break;
        }
      }
      for (long ms = 0; ms * 1_000_000 <= length; ms += step) {
        double x = x(start + ms * 1_000_000);
        svg.append(
            format(
                "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eeeeee\"/>%n",
                x, top, x, bottom));
        svg.append(
            format(
                "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" fill=\"#777777\" text-anchor=\"middle\">%d ms</text>%n",
                x, top - 4, ms));
      }
    }
  }

  private static String millis(long nanos) {
    double ms = nanos / 1e6;
    return ms >= 10 ? format("%.0f ms", ms) : format("%.1f ms", ms);
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }

  private static String format(String pattern, Object... values) {
    return String.format(Locale.ROOT, pattern, values);
  }
}
