package dev.bolo.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Traces on against off when each is run in several processes at once ({@code TracingOverhead
 * --replicas N}): one process's JIT compiler makes its own choices, which hold for the whole run
 * and move its CPU per note by a few per cent whatever it traces, so one process per row measures
 * that luck as much as the traces. Here each round's ratio is the mean CPU per note of the traced
 * processes over that of the untraced ones, and each process's own median ratio to the untraced
 * mean shows the spread between processes of one build.
 */
final class PooledRatios {

  private PooledRatios() {}

  /**
   * Appends the pooled ratios of the rows {@code on} selects over those {@code off} selects, by
   * {@code role}'s CPU per note, the two groups named {@code onName} and {@code offName} in the
   * table's words.
   */
  static void append(
      StringBuilder out,
      Map<String, List<LoadResult>> results,
      Predicate<String> on,
      Predicate<String> off,
      String role,
      String title,
      String onName,
      String offName) {
    List<List<LoadResult>> traced = select(results, on);
    List<List<LoadResult>> untraced = select(results, off);
    if (traced.isEmpty() || untraced.isEmpty()) {
      return;
    }
    int rounds = untraced.get(0).size();
    List<Double> ratios = new ArrayList<>();
    List<Double> offMeans = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
      double offMean = mean(untraced, round, role);
      offMeans.add(offMean);
      ratios.add(mean(traced, round, role) / offMean);
    }
    out.append(
        String.format(
            Locale.ROOT,
            "%n## %s: %d %s processes against %d %s, pooled%n%n"
                + "Each round: the %s processes' mean CPU per note over the %s ones'."
                + " Median of %d rounds **%.3f**, middle half %s.%n%n"
                + "| process | median of its CPU per note over the %s mean, each round |%n"
                + "|---|---|%n",
            title,
            traced.size(),
            onName,
            untraced.size(),
            offName,
            onName,
            offName,
            rounds,
            LoadReport.median(ratios),
            middleHalf(ratios),
            offName));
    results.forEach(
        (name, runs) -> {
          if (!on.test(name) && !off.test(name)) {
            return;
          }
          List<Double> own = new ArrayList<>();
          for (int round = 0; round < rounds && round < runs.size(); round++) {
            own.add(runs.get(round).cpuPerRequest(role) / offMeans.get(round));
          }
          out.append(String.format(Locale.ROOT, "| %s | %.3f |%n", name, LoadReport.median(own)));
        });
  }

  /**
   * The pooled tables of a run with {@code groups} named ({@code --replicas-…}): each group against
   * the untraced processes ({@code gateway}, {@code off-2}…) by each of {@code roles}, titled by
   * {@code title} of the role; then each group against each named before it, in the same rounds, by
   * the first role: the parts of the cost.
   */
  static void appendGroups(
      StringBuilder out,
      Map<String, List<LoadResult>> results,
      List<String> groups,
      List<String> roles,
      Function<String, String> title) {
    for (String group : groups) {
      for (String role : roles) {
        append(
            out,
            results,
            of(group),
            name -> name.equals("gateway") || name.startsWith("off-"),
            role,
            title.apply(role) + (groups.size() > 1 ? ", `" + group + "`" : ""),
            "traced",
            "untraced");
      }
    }
    for (int later = 1; later < groups.size(); later++) {
      for (int earlier = 0; earlier < later; earlier++) {
        String on = groups.get(later);
        String off = groups.get(earlier);
        append(
            out,
            results,
            of(on),
            of(off),
            roles.get(0),
            title.apply(roles.get(0)) + ", `" + on + "` against `" + off + "`",
            "`" + on + "`",
            "`" + off + "`");
      }
    }
  }

  /** The processes of {@code group}: {@code traced}, {@code traced-2}… */
  private static Predicate<String> of(String group) {
    return name -> name.equals(group) || name.startsWith(group + "-");
  }

  private static List<List<LoadResult>> select(
      Map<String, List<LoadResult>> results, Predicate<String> rows) {
    return results.entrySet().stream()
        .filter(row -> rows.test(row.getKey()))
        .map(Map.Entry::getValue)
        .toList();
  }

  private static double mean(List<List<LoadResult>> rows, int round, String role) {
    return rows.stream()
        .mapToDouble(runs -> runs.get(round).cpuPerRequest(role))
        .average()
        .orElseThrow();
  }

  private static String middleHalf(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    return String.format(
        Locale.ROOT,
        "%.3f–%.3f",
        sorted.get(sorted.size() / 4),
        sorted.get((sorted.size() * 3 - 1) / 4));
  }
}
