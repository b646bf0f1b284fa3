package dev.bolo.server.layout;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.AccessTarget;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Time is read in one place: the composition root ({@code dev.bolo.server}) reads the machine's
 * clock and tickers once and hands them down, so a test that moves a fake clock moves every wait,
 * lease, deadline and expiry of the gateway with it. A class of any other package that reads the
 * clock itself (or has a library read it, as Jetty's {@code NanoTime} does) escapes the test's
 * time.
 */
class InjectedTimeTest {

  private static final String ROOT = "dev.bolo.server";

  /**
   * The one read allowed below the root, with its reason: a request Jetty refused while parsing
   * reached none of the gateway's code, so its only time stamp is Jetty's own, taken on Jetty's
   * clock; only that clock can say how long ago it was (for the access log's duration).
   */
  private static final Set<String> ALLOWED = Set.of("dev.bolo.server.http.JsonErrorHandler");

  private static JavaClasses classes;

  @BeforeAll
  static void importGateway() {
    classes = new ClassFileImporter().importPath(Path.of("target", "classes"));
    assertThat(classes.contain(ROOT + ".App")).as("the gateway's classes were imported").isTrue();
  }

  @Test
  void noClassBelowTheCompositionRootReadsTheClockItself() {
    assertThat(clockReadsBelowTheRoot(classes)).isEmpty();
  }

  @Test
  void aClockReadBelowTheRootIsFoundCalledOrReferenced() {
    JavaClasses planted =
        new ClassFileImporter().importClasses(Planted.class, Planted.Referenced.class);

    assertThat(clockReadsBelowTheRoot(planted))
        .anySatisfy(read -> assertThat(read).contains("calls method <java.lang.System.nanoTime()>"))
        .anySatisfy(
            read -> assertThat(read).contains("references method <java.lang.System.nanoTime()>"))
        .anySatisfy(read -> assertThat(read).contains("Clock.systemUTC()"))
        .anySatisfy(read -> assertThat(read).contains("Instant.now()"))
        .noneSatisfy(read -> assertThat(read).contains("Instant.now(java.time.Clock)"));
  }

  /** Each direct clock read of a class outside the root package, described with its line. */
  private static Set<String> clockReadsBelowTheRoot(JavaClasses imported) {
    Set<String> reads = new TreeSet<>();
    for (JavaClass origin : imported) {
      if (origin.getPackageName().equals(ROOT) || ALLOWED.contains(outermost(origin))) {
        continue;
      }
      for (JavaAccess<?> access : origin.getAccessesFromSelf()) {
        if (readsTheClock(access.getTarget())) {
          reads.add(access.getDescription());
        }
      }
    }
    return reads;
  }

  /**
   * Whether calling {@code target} reads the machine's time: the JDK's clocks and tickers, {@code
   * now()} of every {@code java.time} type unless it is given a {@link Clock}, and Jetty's {@code
   * NanoTime}.
   */
  private static boolean readsTheClock(AccessTarget target) {
    String owner = target.getOwner().getName();
    String name = target.getName();
    return switch (owner) {
      case "java.lang.System" -> name.equals("nanoTime") || name.equals("currentTimeMillis");
      case "java.time.Clock" -> name.startsWith("system") || name.equals("tickMillis");
      case "java.time.InstantSource" -> name.equals("system");
      case "org.eclipse.jetty.util.NanoTime" ->
          List.of("now", "since", "millisSince", "secondsSince", "elapsedFrom").contains(name);
      default ->
          owner.startsWith("java.time.")
              && name.equals("now")
              && !(target instanceof AccessTarget.CodeUnitAccessTarget unit
                  && unit.getRawParameterTypes().size() == 1
                  && unit.getRawParameterTypes().getFirst().isEquivalentTo(Clock.class));
    };
  }

  /** The top-level class {@code javaClass} is or is nested in. */
  private static String outermost(JavaClass javaClass) {
    String name = javaClass.getName();
    int nested = name.indexOf('$');
    return nested < 0 ? name : name.substring(0, nested);
  }

  /** Reads the clock as a class below the root must not (this package is below it too). */
  @SuppressWarnings("unused")
  private static final class Planted {

    long elapsed() {
      return System.nanoTime();
    }

    Clock wall() {
      return Clock.systemUTC();
    }

    java.time.Instant stamped() {
      return java.time.Instant.now();
    }

    /** Allowed: the clock is handed in. */
    java.time.Instant handedIn(Clock clock) {
      return java.time.Instant.now(clock);
    }

    /** A read by reference, as a default ticker would be. */
    private static final class Referenced {
      java.util.function.LongSupplier ticker() {
        return System::nanoTime;
      }
    }
  }
}
