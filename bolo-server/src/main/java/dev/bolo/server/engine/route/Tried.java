package dev.bolo.server.engine.route;

import dev.bolo.server.engine.EngineResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What one note met on its way through a route's targets, and so its answer when none served it:
 * what failed first, else the gateway's own 503 naming every target passed over, with the shortest
 * wait any of them asked. One note's; not thread safe.
 */
final class Tried {

  private EngineResult.@Nullable Failure first;
  private @Nullable Duration shortestWait;
  private final List<String> passedOver = new ArrayList<>();

  /** The first failure of a call, if a call failed. */
  EngineResult.@Nullable Failure first() {
    return first;
  }

  /** {@code target} was not called: {@code why}, and it may take a call after {@code wait}. */
  void passedOver(Target target, String why, Duration wait) {
    passedOver.add(target.hop().label() + " (" + why + ")");
    shortestWait = shortestWait == null || wait.compareTo(shortestWait) < 0 ? wait : shortestWait;
  }

  /** A call to {@code target} failed with {@code failure}. */
  void failed(Target target, EngineResult.Failure failure) {
    first = first == null ? failure : first;
    passedOver.add(target.hop().label() + " (" + failure.message() + ")");
  }

  /** The note's answer once every target was tried or passed over. */
  EngineResult.Failure answer() {
    if (first != null) {
      return first;
    }
    return new EngineResult.Saturated(
        "no provider can take the note now: " + String.join(", ", passedOver),
        shortestWait == null ? Duration.ofSeconds(1) : shortestWait);
  }
}
