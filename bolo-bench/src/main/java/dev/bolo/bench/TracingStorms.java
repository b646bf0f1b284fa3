package dev.bolo.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@link TracingOverhead}'s duplicate storms: {@code --storm-notes} notes sent {@code --copies}
 * times at once to each gateway by turns ({@link DuplicateStorm}), {@code --rounds} times, the
 * order turned each round, with the gateway process's CPU per request (a copy of a note) in each.
 */
final class TracingStorms {

  private TracingStorms() {}

  /**
   * Runs the storms and appends each row's CPU per request in every storm, with the median; then
   * each row's first storm line and how many of its storms called the provider once per distinct
   * note. Returns each row's storms as results of one request count and the gateway's CPU, for
   * {@link PooledRatios}; each request also counts in {@code answered}.
   */
  static Map<String, List<LoadResult>> run(
      StringBuilder out,
      LoadTargets targets,
      GatewayLoadOptions options,
      Map<String, Long> answered)
      throws Exception {
    Map<String, List<LoadResult>> storms = new LinkedHashMap<>();
    Map<String, String> firstLine = new LinkedHashMap<>();
    Map<String, Integer> oncePerNote = new LinkedHashMap<>();
    long requests = (long) options.stormNotes() * options.copies();
    for (int round = 1; round <= options.rounds(); round++) {
      for (var target : LoadRounds.inRoundOrder(targets.urls(), round)) {
        String name = target.getKey();
        long before = ProcessStats.treeCpuMillis(targets.serverPid(name));
        StringBuilder line = new StringBuilder();
        DuplicateStorm.run(line, targets.providerPort(), targets.port(name), options);
        long cpu = ProcessStats.treeCpuMillis(targets.serverPid(name)) - before;
        answered.merge(name, requests, Long::sum);
        storms
            .computeIfAbsent(name, k -> new ArrayList<>())
            .add(new LoadResult(requests, 0, 0, 0, 0, 0, 0, Map.of(LoadResult.SERVER, cpu)));
        firstLine.putIfAbsent(name, line.toString().trim());
        oncePerNote.merge(name, line.indexOf("(= distinct notes)") >= 0 ? 1 : 0, Integer::sum);
        System.out.printf(
            Locale.ROOT,
            "storm %d %-9s %.3f ms CPU per request%n",
            round,
            name,
            (double) cpu / requests);
      }
    }
    out.append(
        String.format(
            Locale.ROOT,
            "%n## Duplicate storms (%d notes x %d copies at once), by turns%n%n| row | gateway CPU"
                + " ms/request, each storm | median |%n|---|---|---|%n",
            options.stormNotes(),
            options.copies()));
    storms.forEach(
        (name, runs) -> {
          List<Double> perRequest = runs.stream().map(LoadResult::serverCpuPerRequest).toList();
          out.append(
              String.format(
                  Locale.ROOT,
                  "| %s | %s | **%.3f** |%n",
                  name,
                  String.join(
                      ", ",
                      perRequest.stream().map(v -> String.format(Locale.ROOT, "%.3f", v)).toList()),
                  LoadReport.median(perRequest)));
        });
    out.append('\n');
    firstLine.forEach(
        (name, line) ->
            out.append(
                String.format(
                    Locale.ROOT,
                    "- %s, %d of %d storms with provider calls = distinct notes; the first: %s%n",
                    name,
                    oncePerNote.getOrDefault(name, 0),
                    options.rounds(),
                    line)));
    return storms;
  }
}
