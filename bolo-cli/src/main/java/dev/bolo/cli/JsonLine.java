package dev.bolo.cli;

import dev.bolo.client.Job;
import dev.bolo.client.JobOutcome;
import dev.bolo.client.Outcome;
import dev.bolo.client.Transcript;
import java.nio.file.Path;

/** One note's outcome as a line of JSON, for {@code bolo transcribe --json}. Stateless. */
final class JsonLine {

  private JsonLine() {}

  static String of(Path file, Outcome outcome) {
    StringBuilder line = new StringBuilder("{\"file\":").append(quote(file.toString()));
    line.append(",\"attempts\":").append(outcome.attempts());
    switch (outcome) {
      case Outcome.Transcribed t -> {
        Transcript tr = t.transcript();
        line.append(",\"status\":\"transcribed\",\"text\":").append(quote(tr.text()));
        line.append(",\"deduplicated\":").append(tr.deduplicated());
        line.append(",\"audio_sha256\":").append(quote(tr.audioSha256()));
        line.append(",\"duration_ms\":").append(tr.durationMs() == null ? "null" : tr.durationMs());
        line.append(",\"request_id\":").append(quote(tr.requestId()));
        line.append(",\"engine\":").append(quote(tr.engine()));
      }
      case Outcome.Refused r -> {
        line.append(",\"status\":\"refused\",\"http_status\":").append(r.status());
        line.append(",\"code\":").append(r.code() == null ? "null" : quote(r.code()));
        line.append(",\"error\":").append(quote(r.message()));
      }
      case Outcome.GaveUp g ->
          line.append(",\"status\":\"gave_up\",\"error\":")
              .append(quote(FailureText.of(g.lastFailure())));
      case Outcome.Cancelled c -> line.append(",\"status\":\"cancelled\"");
      case Outcome.Unreadable u ->
          line.append(",\"status\":\"unreadable\",\"error\":").append(quote(u.message()));
      case Outcome.AudioChanged a ->
          line.append(",\"status\":\"audio_changed\",\"error\":").append(quote(a.message()));
    }
    return line.append('}').toString();
  }

  /** One submission's outcome: the job's id and status, or why there is none. */
  static String ofJob(Path file, JobOutcome<Job> outcome) {
    StringBuilder line = new StringBuilder("{\"file\":").append(quote(file.toString()));
    line.append(",\"attempts\":").append(outcome.attempts());
    switch (outcome) {
      case JobOutcome.Answered<Job> a -> {
        line.append(",\"status\":\"submitted\",\"id\":").append(quote(a.answer().id()));
        line.append(",\"job_status\":").append(quote(a.answer().status().wireName()));
        line.append(",\"audio_sha256\":").append(quote(a.answer().audioSha256()));
      }
      case JobOutcome.Refused<Job> r -> {
        line.append(",\"status\":\"refused\",\"http_status\":").append(r.error().status());
        line.append(",\"code\":")
            .append(r.error().code() == null ? "null" : quote(r.error().code()));
        line.append(",\"error\":").append(quote(r.error().message()));
      }
      case JobOutcome.GaveUp<Job> g ->
          line.append(",\"status\":\"gave_up\",\"error\":")
              .append(quote(FailureText.of(g.lastFailure())));
      case JobOutcome.Cancelled<Job> c -> line.append(",\"status\":\"cancelled\"");
      case JobOutcome.Unreadable<Job> u ->
          line.append(",\"status\":\"unreadable\",\"error\":").append(quote(u.message()));
    }
    return line.append('}').toString();
  }

  static String quote(String value) {
    StringBuilder out = new StringBuilder("\"");
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }
}
