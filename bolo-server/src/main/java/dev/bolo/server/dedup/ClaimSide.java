package dev.bolo.server.dedup;

/**
 * Which side of a {@link FailOpenDedupStore} issued a claim, written as a prefix on its token, so
 * that work started on one side ends on the same side.
 */
enum ClaimSide {
  /** The shared store (Redis). */
  SHARED("shared:"),
  /** This instance's memory, while the shared store is unreachable. */
  LOCAL("local:");

  private final String prefix;

  ClaimSide(String prefix) {
    this.prefix = prefix;
  }

  /** The claim with its token marked as this side's; a claim that owns nothing as it is. */
  Claim tag(Claim claim) {
    return claim instanceof Claim.Owned owned ? new Claim.Owned(prefix + owned.token()) : claim;
  }

  /** Whether this instance's memory issued the claim. */
  static boolean isLocal(Claim.Owned owner) {
    return owner.token().startsWith(LOCAL.prefix);
  }

  /** The claim as the side that issued it knows it, without the mark. */
  static Claim.Owned untagged(Claim.Owned owner) {
    String token = owner.token();
    for (ClaimSide side : values()) {
      if (token.startsWith(side.prefix)) {
        return new Claim.Owned(token.substring(side.prefix.length()));
      }
    }
    // Not one of ours: pass it through so the store can refuse it.
    return owner;
  }
}
