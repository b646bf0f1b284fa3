package dev.bolo.server.layout;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package diagram in {@code docs/architecture.md} is the code's: every arrow drawn is a
 * dependency of the compiled classes, and every dependency between the gateway's packages is drawn.
 * A change that adds an arrow must redraw the diagram, so the picture a reader follows is never
 * stale.
 */
class ArchitectureTest {

  private static final String ROOT = "dev.bolo.server";
  private static final Pattern ARROW = Pattern.compile("^\\s*(\\w+)\\s*-->\\s*(\\w+)\\s*$");

  private static JavaClasses classes;

  @BeforeAll
  static void importGateway() {
    // The module's own compiled classes: scanning the whole class path for the package is slow.
    classes = new ClassFileImporter().importPath(Path.of("target", "classes"));
    assertThat(classes.contain(ROOT + ".App")).as("the gateway's classes were imported").isTrue();
  }

  @Test
  void theDiagramDrawsExactlyTheDependenciesBetweenTheGatewaysPackages() throws IOException {
    Set<String> drawn = drawnArrows();
    Set<String> actual = new TreeSet<>();
    for (JavaClass origin : classes) {
      for (Dependency dependency : origin.getDirectDependenciesFromSelf()) {
        JavaClass target = dependency.getTargetClass();
        if (!target.getPackageName().startsWith(ROOT)) {
          continue;
        }
        String from = area(origin.getPackageName());
        String to = area(target.getPackageName());
        if (!from.equals(to)) {
          actual.add(from + " --> " + to);
        }
      }
    }

    assertThat(drawn)
        .as("arrows of docs/architecture.md; the code's are %s", actual)
        .isEqualTo(actual);
  }

  @Test
  void theCompiledPackagesDependOnEachOtherWithoutACycleOfAnyLength() {
    // ArchUnit reports every cycle, through two packages or ten, with the classes that close it.
    slices().assignedFrom(BY_AREA).should().beFreeOfCycles().check(classes);
  }

  @Test
  void theDiagramHasNoCycleOfAnyLength() throws IOException {
    assertThat(cycleIn(drawnArrows())).as("a cycle in docs/architecture.md").isEmpty();
  }

  @Test
  void aCycleThroughThreePackagesIsFoundWhereNoTwoOfThemPointAtEachOther() {
    Set<String> arrows =
        Set.of("http --> transcription", "transcription --> upload", "upload --> http");

    assertThat(cycleIn(arrows)).hasValueSatisfying(cycle -> assertThat(cycle).hasSize(4));
    assertThat(cycleIn(Set.of("http --> upload", "transcription --> upload"))).isEmpty();
  }

  /** The diagram's packages, one slice each, for ArchUnit's cycle check. */
  private static final SliceAssignment BY_AREA =
      new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
          String packageName = javaClass.getPackageName();
          return packageName.startsWith(ROOT)
              ? SliceIdentifier.of(area(packageName))
              : SliceIdentifier.ignore();
        }

        @Override
        public String getDescription() {
          return "the gateway's packages as docs/architecture.md names them";
        }
      };

  /**
   * A cycle among {@code arrows} ("a --> b"), as the packages it passes through with the first one
   * again at the end, or empty when there is none: a depth-first search that meets a package still
   * on its path.
   */
  static Optional<List<String>> cycleIn(Set<String> arrows) {
    Map<String, List<String>> uses = new HashMap<>();
    for (String arrow : new TreeSet<>(arrows)) {
      String[] ends = arrow.split(" --> ");
      uses.computeIfAbsent(ends[0], k -> new ArrayList<>()).add(ends[1]);
    }
    Set<String> done = new TreeSet<>();
    for (String start : new TreeSet<>(uses.keySet())) {
      Optional<List<String>> cycle = cycleFrom(start, uses, new ArrayList<>(), done);
      if (cycle.isPresent()) {
        return cycle;
      }
    }
    return Optional.empty();
  }

  private static Optional<List<String>> cycleFrom(
      String from, Map<String, List<String>> uses, List<String> path, Set<String> done) {
    int seen = path.indexOf(from);
    if (seen >= 0) {
      List<String> cycle = new ArrayList<>(path.subList(seen, path.size()));
      cycle.add(from);
      return Optional.of(cycle);
    }
    if (done.contains(from)) {
      return Optional.empty();
    }
    path.add(from);
    for (String to : uses.getOrDefault(from, List.of())) {
      Optional<List<String>> cycle = cycleFrom(to, uses, path, done);
      if (cycle.isPresent()) {
        return cycle;
      }
    }
    path.remove(path.size() - 1);
    done.add(from);
    return Optional.empty();
  }

  /**
   * The diagram's name for a package: its first segment below {@code dev.bolo.server} (an engine's
   * own package counts as {@code engine}), {@code server} for the composition root.
   */
  private static String area(String packageName) {
    if (packageName.equals(ROOT)) {
      return "server";
    }
    String below = packageName.substring(ROOT.length() + 1);
    int dot = below.indexOf('.');
    return dot < 0 ? below : below.substring(0, dot);
  }

  private static Set<String> drawnArrows() throws IOException {
    Path doc = Path.of("..", "docs", "architecture.md");
    Set<String> arrows = new TreeSet<>();
    boolean inDiagram = false;
    for (String line : Files.readAllLines(doc)) {
      if (line.startsWith("```mermaid")) {
        inDiagram = true;
      } else if (line.startsWith("```")) {
        inDiagram = false;
      } else if (inDiagram) {
        Matcher arrow = ARROW.matcher(line);
        if (arrow.matches()) {
          arrows.add(arrow.group(1) + " --> " + arrow.group(2));
        }
      }
    }
    assertThat(arrows).as("the mermaid diagram in " + doc).isNotEmpty();
    return arrows;
  }
}
