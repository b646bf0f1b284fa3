package dev.bolo.client;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One page of the device's jobs, newest first ({@code GET /v1/jobs}).
 *
 * @param jobs the page's jobs
 * @param hasMore whether older jobs follow: ask again with {@link #nextAfter()}
 */
public record JobList(List<Job> jobs, boolean hasMore) {

  public JobList {
    jobs = List.copyOf(jobs);
  }

  /** The {@code after} of the next page: the id of this page's last job, or null when none. */
  public @Nullable String nextAfter() {
    return hasMore && !jobs.isEmpty() ? jobs.get(jobs.size() - 1).id() : null;
  }
}
