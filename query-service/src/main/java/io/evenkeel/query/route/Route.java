package io.evenkeel.query.route;

import java.util.Arrays;

/** The shards a query visits, ascending, and why (for EXPLAIN). */
public record Route(int[] shards, String reason) {
  public Route {
    shards = shards.clone();
  }

  @Override
  public int[] shards() {
    return shards.clone();
  }

  public int size() {
    return shards.length;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Route r && Arrays.equals(r.shards, shards) && r.reason.equals(reason);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(shards) * 31 + reason.hashCode();
  }

  @Override
  public String toString() {
    return reason;
  }
}
