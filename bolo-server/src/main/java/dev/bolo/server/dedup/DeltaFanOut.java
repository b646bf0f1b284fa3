package dev.bolo.server.dedup;

import dev.bolo.server.engine.TranscriptDeltas;
import dev.bolo.server.work.WorkKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Hands the text of running work to every copy of it waiting on this instance, piece by piece: the
 * copy that started it and every duplicate that joins it. A copy that joins mid-way first receives
 * the text so far as one piece, then the rest as it arrives. Copies waiting on another instance
 * (sharing work through Redis) receive nothing from here; they get the finished text.
 *
 * <p>Thread safe. Listeners are called while the key's entry is locked, in the order the pieces
 * arrived, so they must not block (a queue's {@code offer} is the intended listener).
 */
public final class DeltaFanOut {

  /** The listeners of one key and the text its running work produced so far. */
  private static final class Channel {
    final List<TranscriptDeltas> listeners = new ArrayList<>();
    final StringBuilder textSoFar = new StringBuilder();
    int runs;
  }

  private final Map<WorkKey, Channel> channels = new ConcurrentHashMap<>();

  /** A listener's registration; closing it ends the deliveries. */
  public interface Subscription extends AutoCloseable {

    /**
     * Whether work on the key was already running here when the listener subscribed: the copy joins
     * it and its answer is a replay.
     */
    boolean joinedRunningWork();

    @Override
    void close();
  }

  /** The running work's side: each piece it accepts goes to every listener of its key. */
  public interface Publication extends TranscriptDeltas, AutoCloseable {
    @Override
    void close();
  }

  /** Listens to the key's running work (and to work that starts later) until closed. */
  public Subscription subscribe(WorkKey key, TranscriptDeltas listener) {
    boolean[] joined = new boolean[1];
    channels.compute(
        key,
        (k, current) -> {
          Channel channel = current != null ? current : new Channel();
          channel.listeners.add(listener);
          joined[0] = channel.runs > 0;
          if (!channel.textSoFar.isEmpty()) {
            listener.accept(channel.textSoFar.toString());
          }
          return channel;
        });
    boolean joinedRunning = joined[0];
    return new Subscription() {
      @Override
      public boolean joinedRunningWork() {
        return joinedRunning;
      }

      @Override
      public void close() {
        channels.computeIfPresent(
            key,
            (k, channel) -> {
              channel.listeners.remove(listener);
              return isIdle(channel) ? null : channel;
            });
      }
    };
  }

  /**
   * Opens the key's running work for publication. Closing it forgets the text so far, so a copy
   * that arrives after a failed run never receives the failed run's text.
   */
  public Publication publish(WorkKey key) {
    channels.compute(
        key,
        (k, current) -> {
          Channel channel = current != null ? current : new Channel();
          channel.runs++;
          return channel;
        });
    return new Publication() {
      @Override
      public void accept(String delta) {
        channels.computeIfPresent(
            key,
            (k, channel) -> {
              channel.textSoFar.append(delta);
              for (TranscriptDeltas listener : channel.listeners) {
                listener.accept(delta);
              }
              return channel;
            });
      }

      @Override
      public void close() {
        channels.computeIfPresent(
            key,
            (k, channel) -> {
              channel.runs--;
              channel.textSoFar.setLength(0);
              return isIdle(channel) ? null : channel;
            });
      }
    };
  }

  /** How many keys have listeners or running work now (for tests: nothing may leak). */
  int channels() {
    return channels.size();
  }

  private static boolean isIdle(Channel channel) {
    return channel.listeners.isEmpty() && channel.runs == 0;
  }
}
