package io.evenkeel.router.protocol;

/**
 * The answer of {@link Participant#tryRoute}: a shard, or "pending" with the reason the write must wait (a round that
 * may change its shard is undecided, the participant is cut off from ZooKeeper, or the row is from the future).
 * A pending write has not been routed: the caller retries it later or waits with {@link Participant#route}.
 */
public record Routing(int shard, String pendingReason) {
  static Routing routed(int shard) {
    return new Routing(shard, null);
  }

  static Routing pending(String reason) {
    return new Routing(-1, reason);
  }

  public boolean isPending() {
    return pendingReason != null;
  }

  @Override
  public String toString() {
    return isPending() ? "Routing(pending: " + pendingReason + ")" : "Routing(shard=" + shard + ")";
  }
}
