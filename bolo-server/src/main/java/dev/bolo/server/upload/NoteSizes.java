package dev.bolo.server.upload;

/**
 * The words of a size refusal: which limit the note passed, in megabytes (10^6 bytes, as phones and
 * file managers show sizes) and in bytes, and where a larger note can go instead. Stateless.
 */
public final class NoteSizes {

  /** Where a note too large for one POST goes: the tus upload, which survives a broken link. */
  public static final String RESUMABLE_PATH = "/v1/uploads";

  private NoteSizes() {}

  /**
   * A size as "536 MB (536870912 bytes)": the megabytes rounded down, so that a refused note is
   * always truly larger than the number shown.
   */
  public static String describe(long bytes) {
    if (bytes >= 10_000_000) {
      return bytes / 1_000_000 + " MB (" + bytes + " bytes)";
    }
    if (bytes >= 100_000) {
      return (bytes / 100_000) / 10.0 + " MB (" + bytes + " bytes)";
    }
    return bytes + " bytes";
  }

  /**
   * Why a note larger than one POST takes is refused, and, when a resumable upload takes more, that
   * it goes there.
   *
   * @param maxPostBytes the largest note a POST takes
   * @param maxResumableBytes the largest resumable upload ({@link Long#MAX_VALUE}: no limit)
   */
  public static String tooLargeForPost(long maxPostBytes, long maxResumableBytes) {
    String passed = "the note is larger than " + describe(maxPostBytes);
    if (maxResumableBytes <= maxPostBytes) {
      return passed + ", the most this gateway takes";
    }
    return passed
        + ", the most one POST takes; send a larger note as a resumable upload (tus 1.0.0 at "
        + RESUMABLE_PATH
        + (maxResumableBytes == Long.MAX_VALUE
            ? ")"
            : "), which takes up to " + describe(maxResumableBytes));
  }

  /** Why a resumable upload larger than the spool can hold is refused. */
  public static String tooLargeForResumable(long maxResumableBytes) {
    return "the note is larger than "
        + describe(maxResumableBytes)
        + ", the most a resumable upload may be on this gateway (a quarter of its spool budget,"
        + " which one device's unfinished uploads may hold together)";
  }
}
