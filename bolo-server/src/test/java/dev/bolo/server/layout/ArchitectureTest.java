package dev.bolo.server.layout;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
  void noPackageDependsOnAPackageThatDependsOnIt() throws IOException {
    Set<String> drawn = drawnArrows();
    for (String arrow : drawn) {
      String[] ends = arrow.split(" --> ");
      assertThat(drawn).as("a cycle through " + arrow).doesNotContain(ends[1] + " --> " + ends[0]);
    }
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
